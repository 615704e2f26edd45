package dev.waybill.outbox.internal.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;

/**
 * The threads of one start of the relay, by job: started in the order the relay needs them (the
 * settler, the lease renewal and the claim commits before the workers), each logging its death,
 * and joined by job in the order the relay stops them.
 */
final class RelayThreads {

	// Under the relay's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Relay.class);

	/** The threads of a relay that never started. */
	static final RelayThreads NONE = new RelayThreads(null, null, null, List.of());

	private final @Nullable Thread settler;

	private final @Nullable Thread leases;

	private final @Nullable Thread commits;

	/** The workers, the direct one included. */
	private final List<Thread> workers;

	private final List<Thread> all;

	private RelayThreads(@Nullable Thread settler, @Nullable Thread leases, @Nullable Thread commits,
			List<Thread> workers) {
		this.settler = settler;
		this.leases = leases;
		this.commits = commits;
		this.workers = List.copyOf(workers);
		List<Thread> all = new ArrayList<>();
		for (Thread thread : new Thread[] { settler, leases, commits }) {
			if (thread != null) {
				all.add(thread);
			}
		}
		all.addAll(workers);
		this.all = List.copyOf(all);
	}

	/**
	 * Starts the threads of one start of the relay.
	 * @param relayId the relay's id, for the line of a thread that dies
	 * @param source where the threads come from
	 * @param settler records the outcomes
	 * @param leases renews the leases
	 * @param commits commits the claims
	 * @param workers the workers, by thread name, in the order they start
	 * @return the started threads
	 */
	static RelayThreads start(String relayId, WaybillThreads source, Runnable settler, Runnable leases,
			Runnable commits, Map<String, Runnable> workers) {
		Thread settlerThread = start(relayId, source, "waybill-relay-settler", settler);
		Thread leasesThread = start(relayId, source, "waybill-relay-leases", leases);
		Thread commitsThread = start(relayId, source, "waybill-relay-commits", commits);
		List<Thread> workerThreads = new ArrayList<>();
		workers.forEach((name, worker) -> workerThreads.add(start(relayId, source, name, worker)));
		return new RelayThreads(settlerThread, leasesThread, commitsThread, workerThreads);
	}

	private static Thread start(String relayId, WaybillThreads source, String name, Runnable task) {
		Thread thread = source.newThread(name, () -> {
			try {
				task.run();
			}
			catch (RuntimeException | Error ex) {
				logger.error("Waybill relay " + relayId + " lost its thread " + name + ": " + ex, ex);
				throw ex;
			}
		});
		thread.start();
		return thread;
	}

	/** Returns every thread, the settler, lease and commits threads first. */
	List<Thread> all() {
		return this.all;
	}

	/** Returns how many of the threads are alive. */
	int live() {
		int live = 0;
		for (Thread thread : this.all) {
			live += thread.isAlive() ? 1 : 0;
		}
		return live;
	}

	void joinWorkers(long deadlineNanos) {
		for (Thread worker : this.workers) {
			join(worker, deadlineNanos);
		}
	}

	void joinCommits(long deadlineNanos) {
		join(this.commits, deadlineNanos);
	}

	/** Joins the settler, then the lease renewal. */
	void joinSettlerAndLeases(long deadlineNanos) {
		join(this.settler, deadlineNanos);
		join(this.leases, deadlineNanos);
	}

	private static void join(@Nullable Thread thread, long deadlineNanos) {
		if (thread == null) {
			return;
		}
		try {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
