package dev.waybill.outbox;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Where every thread of Waybill comes from: the relay's workers ({@code waybill-relay-0}, ...), its
 * settler, lease renewer and claim committer, the PostgreSQL listener and notifier, the consumers
 * ({@code waybill-consumer-1}, ...) and their connecting thread, the confirm-timeout and retention
 * schedulers, the backlog health check's database read. Each thread is named {@code waybill-<role>[-<n>]}; platform threads are daemons.
 * <p>
 * The auto-configuration declares one as a bean: {@linkplain #virtual() virtual threads} when
 * {@code spring.threads.virtual.enabled=true} on Java 21 or later, {@linkplain #platform() platform
 * threads} otherwise. Declare a bean of your own (a subclass overriding {@link #newThread(String, Runnable)})
 * to choose otherwise, e.g. to set a priority or propagate a context.
 *
 * @since 0.1
 */
public class WaybillThreads {

	private final @Nullable ThreadFactory virtualThreads;

	/**
	 * Creates a source of daemon platform threads; subclasses may override
	 * {@link #newThread(String, Runnable)}.
	 */
	protected WaybillThreads() {
		this(null);
	}

	private WaybillThreads(@Nullable ThreadFactory virtualThreads) {
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Daemon platform threads.
	 * @return a new instance
	 */
	public static WaybillThreads platform() {
		return new WaybillThreads(null);
	}

	/**
	 * Virtual threads, through Spring's {@link VirtualThreadTaskExecutor}.
	 * @return a new instance
	 * @throws UnsupportedOperationException before Java 21
	 */
	public static WaybillThreads virtual() {
		return new WaybillThreads(new VirtualThreadTaskExecutor("waybill-").getVirtualThreadFactory());
	}

	/**
	 * Tells whether the threads are virtual.
	 * @return whether {@link #virtual()} created this
	 */
	public boolean isVirtual() {
		return this.virtualThreads != null;
	}

	/**
	 * Creates an unstarted thread.
	 * @param name the thread's name, {@code waybill-<role>[-<n>]}
	 * @param task what it runs
	 * @return the thread
	 */
	public Thread newThread(String name, Runnable task) {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(task, "task must not be null");
		if (this.virtualThreads != null) {
			Thread thread = this.virtualThreads.newThread(task);
			thread.setName(name);
			return thread;
		}
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Returns a thread factory naming its threads {@code <prefix>1}, {@code <prefix>2}, and so on.
	 * @param prefix e.g. {@code waybill-consumer-}
	 * @return the factory, for a pool
	 */
	public ThreadFactory factory(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> newThread(prefix + count.incrementAndGet(), task);
	}

	/**
	 * Returns a thread factory giving every thread the same name, for a single-threaded executor.
	 * @param name the name
	 * @return the factory
	 */
	public ThreadFactory named(String name) {
		return (task) -> newThread(name, task);
	}

	@Override
	public String toString() {
		return isVirtual() ? "virtual threads" : "platform threads";
	}

}
