package dev.waybill.kernel;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;

/**
 * One background thread that runs a pass, sleeps for as long as the pass asks (or until
 * {@link #wake() woken}) and runs it again, until {@link #stop() stopped}. A pass that throws is
 * logged and retried after a fixed wait (an {@link Error} too, except a {@link VirtualMachineError}):
 * the workers using it (schedules, replay) keep their state in the database, so a failed pass loses
 * nothing.
 */
public final class BackgroundLoop {

	private final String threadName;

	private final Supplier<Duration> pass;

	private final Duration retryAfterFailure;

	private final Log logger;

	private final String failureMessage;

	private final Object monitor = new Object();

	private volatile boolean running;

	/** A wake-up that came while a pass ran: the next sleep is skipped, not lost. */
	private boolean woken;

	private volatile @Nullable Thread thread;

	/**
	 * Creates a loop that is not started.
	 * @param threadName the name of the loop's thread
	 * @param pass one pass; returns how long to sleep before the next one
	 * @param retryAfterFailure the sleep after a pass that threw
	 * @param logger where a failed pass is logged, at WARN
	 * @param failureMessage the log line of a failed pass, followed by the retry wait
	 */
	public BackgroundLoop(String threadName, Supplier<Duration> pass, Duration retryAfterFailure, Log logger,
			String failureMessage) {
		this.threadName = Objects.requireNonNull(threadName, "threadName must not be null");
		this.pass = Objects.requireNonNull(pass, "pass must not be null");
		this.retryAfterFailure = Objects.requireNonNull(retryAfterFailure, "retryAfterFailure must not be null");
		this.logger = Objects.requireNonNull(logger, "logger must not be null");
		this.failureMessage = Objects.requireNonNull(failureMessage, "failureMessage must not be null");
	}

	/**
	 * Starts the thread unless it runs already.
	 * @param threads where the thread comes from
	 */
	public void start(WaybillThreads threads) {
		synchronized (this.monitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			Thread loop = threads.newThread(this.threadName, this::loop);
			this.thread = loop;
			loop.start();
		}
	}

	/**
	 * Stops the loop and waits up to 30 seconds for the pass under way to finish.
	 */
	public void stop() {
		Thread loop;
		synchronized (this.monitor) {
			this.running = false;
			loop = this.thread; // kept, so shouldContinue() still recognises the stopping thread
			this.monitor.notifyAll();
		}
		if (loop != null && loop != Thread.currentThread()) {
			try {
				loop.join(Duration.ofSeconds(30).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Ends the current sleep, so the next pass starts at once.
	 */
	public void wake() {
		synchronized (this.monitor) {
			this.woken = true;
			this.monitor.notifyAll();
		}
	}

	/**
	 * Tells a pass whether to go on with more work: {@code false} only on the loop's own thread
	 * once {@link #stop()} was asked, so callers running a pass on their own thread are never cut
	 * short.
	 * @return whether the calling pass should go on
	 */
	public boolean shouldContinue() {
		return this.running || Thread.currentThread() != this.thread;
	}

	/**
	 * Returns whether the loop was started and not stopped.
	 * @return whether the loop runs
	 */
	public boolean isRunning() {
		return this.running;
	}

	private void loop() {
		while (this.running) {
			Duration wait;
			try {
				wait = this.pass.get();
			}
			catch (VirtualMachineError ex) {
				throw ex;
			}
			catch (RuntimeException | Error ex) {
				// An Error from application code a pass runs (a class that failed to initialize, an
				// assertion) would otherwise end the thread while the loop still reports running.
				this.logger.warn(this.failureMessage + "; retrying in " + this.retryAfterFailure, ex);
				wait = this.retryAfterFailure;
			}
			synchronized (this.monitor) {
				if (!this.running) {
					return;
				}
				if (this.woken) {
					this.woken = false;
					continue;
				}
				try {
					this.monitor.wait(Math.max(1, wait.toMillis()));
					this.woken = false;
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

}
