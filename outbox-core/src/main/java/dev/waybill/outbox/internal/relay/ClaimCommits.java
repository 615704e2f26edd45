package dev.waybill.outbox.internal.relay;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Commits the workers' claims on a thread of its own, so that a worker publishes a claim's
 * scopes while PostgreSQL flushes the claim's commit instead of after it (see
 * {@link dev.waybill.outbox.spi.OutboxStore#claim(String, java.time.Duration, int, Executor)}).
 * The commit of a claim costs a WAL flush that queues behind the business transactions' own
 * flushes; off the publishing path, it overlaps with the broker's confirm. Commits run in the
 * order the claims ran; every accepted commit runs, also while stopping.
 */
final class ClaimCommits implements Executor {

	private static final Log logger = LogFactory.getLog(ClaimCommits.class);

	private final BlockingQueue<Runnable> commits = new LinkedBlockingQueue<>();

	private volatile boolean stopping;

	@Override
	public void execute(Runnable commit) {
		this.commits.add(commit);
	}

	/**
	 * Runs the commits handed over until {@link #stop()}, then those still queued.
	 */
	void run() {
		while (!this.stopping || !this.commits.isEmpty()) {
			try {
				Runnable commit = this.commits.poll(Relay.STOP_CHECK.toMillis(), TimeUnit.MILLISECONDS);
				if (commit != null) {
					commit.run();
				}
			}
			catch (InterruptedException ex) {
				// Not expected (the relay stops with stop()); the commits left roll back when their
				// connections are closed, so those claims did not happen.
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Waybill relay failed while committing a claim: " + ex, ex);
			}
		}
	}

	/**
	 * Runs what is queued, then stops; called once the workers stopped claiming.
	 */
	void stop() {
		this.stopping = true;
	}

}
