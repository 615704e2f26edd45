package dev.waybill.replay.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import dev.waybill.kernel.NextLook;
import dev.waybill.kernel.OutageLog;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.StoreAccess;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.replay.ReplayJob;
import dev.waybill.replay.ReplayRequest;
import dev.waybill.replay.ReplayStatus;
import dev.waybill.replay.ReplayTarget;
import dev.waybill.replay.Replays;

/**
 * The {@link Replays} of one store, on its tables, and the batches its jobs write, as
 * {@link JdbcReplays} describes.
 *
 * @since 0.1
 */
final class ReplayJobs implements Replays {

	private static final Log logger = LogFactory.getLog(JdbcReplays.class);

	/**
	 * Whether this is the default store's: its batches wake the relays at once; another store's
	 * are found by the relay's poll of its database, the wake-up being the default store's.
	 */
	private final boolean isDefault;

	private final String storeName;

	private final JdbcTemplate jdbc;

	private final PlatformTransactionManager transactionManager;

	private final ReplaySql sql;

	private final RelayWakeUp wakeUp;

	private final Duration pollInterval;

	private final Runnable wake;

	private final BooleanSupplier shouldContinue;

	private final NextLook nextLook;

	/** The worker's failed batches in this store (its thread only). */
	private final OutageLog outages;

	/**
	 * Creates the replays of one store.
	 * @param store the store: its database, its outbox tables (the archive and job tables are named
	 * after them) and its transaction manager
	 * @param wakeUp told after each batch of the default store, so the relays publish it at once
	 * @param pollInterval the longest sleep of the worker between two looks at the job table
	 * @param wake wakes the worker (a job was started or resumed)
	 * @param shouldContinue whether the worker goes on with another batch
	 */
	ReplayJobs(StoreAccess store, RelayWakeUp wakeUp, Duration pollInterval, Runnable wake,
			BooleanSupplier shouldContinue) {
		this.isDefault = WaybillStore.DEFAULT_NAME.equals(store.name());
		this.storeName = store.name();
		this.jdbc = new JdbcTemplate(store.dataSource());
		this.transactionManager = store.transactionManager();
		this.sql = new ReplaySql(store.tables());
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.pollInterval = pollInterval;
		this.wake = wake;
		this.shouldContinue = shouldContinue;
		this.nextLook = new NextLook(pollInterval);
		String worker = this.isDefault ? "Replay worker" : "Replay worker in store '" + store.name() + "'";
		this.outages = new OutageLog(logger, worker + " failed a batch", worker + " still fails",
				worker + " runs again after %s of failed batches");
	}

	@Override
	public ReplayJob start(ReplayRequest request) {
		UUID id = TimeOrderedUuids.next();
		ReplayTarget target = request.target();
		long interval = (request.messagesPerSecond() == 0) ? 0
				: Math.max(1, request.batchSize() * 1000L / request.messagesPerSecond());
		// In a transaction (the caller's, else one of its own): a pool that does not auto-commit would
		// otherwise roll the job back when the connection goes back to it.
		inTransaction(() -> this.jdbc.update(this.sql.create, id, request.destination(), request.messageType(),
				timestamp(request.from()), timestamp(request.to()), target.destination(), target.routingKey(),
				request.keepMessageIds(), request.batchSize(), interval));
		wake();
		return find(id).orElseThrow();
	}

	@Override
	public Optional<ReplayJob> find(UUID id) {
		return this.jdbc.query(this.sql.find, ReplayJobs::job, id).stream().findFirst();
	}

	@Override
	public List<ReplayJob> list() {
		return this.jdbc.query(this.sql.list, ReplayJobs::job);
	}

	@Override
	public boolean pause(UUID id) {
		return setStatus(id, ReplayStatus.PAUSED, ReplayStatus.RUNNING);
	}

	@Override
	public boolean resume(UUID id) {
		boolean resumed = setStatus(id, ReplayStatus.RUNNING, ReplayStatus.PAUSED);
		wake();
		return resumed;
	}

	@Override
	public boolean cancel(UUID id) {
		return setStatus(id, ReplayStatus.CANCELLED, ReplayStatus.RUNNING, ReplayStatus.PAUSED);
	}

	private boolean setStatus(UUID id, ReplayStatus to, ReplayStatus... from) {
		String[] names = new String[from.length];
		for (int i = 0; i < from.length; i++) {
			names[i] = from[i].name().toLowerCase(Locale.ROOT);
		}
		return inTransaction(() -> this.jdbc.update(this.sql.setStatus, to.name().toLowerCase(Locale.ROOT), id, names)) == 1;
	}

	/**
	 * Writes one batch of one due running job, on the calling thread.
	 * @return how many messages the batch wrote, or {@code -1} when no job was due
	 */
	public long runBatch() {
		Long written = inTransaction(() -> {
			List<ReplayJob> jobs = this.jdbc.query(this.sql.claim, ReplayJobs::job);
			if (jobs.isEmpty()) {
				return -1L;
			}
			ReplayJob job = jobs.get(0);
			ReplayRequest request = job.request();
			List<Object> filterValues = new ArrayList<>();
			StringBuilder filters = new StringBuilder();
			if (request.destination() != null) {
				filters.append(" AND x.destination = ?");
				filterValues.add(request.destination());
			}
			if (request.messageType() != null) {
				filters.append(" AND x.message_type = ?");
				filterValues.add(request.messageType());
			}
			if (request.from() != null) {
				filters.append(" AND x.created_at >= ?");
				filterValues.add(timestamp(request.from()));
			}
			if (request.to() != null) {
				filters.append(" AND x.created_at < ?");
				filterValues.add(timestamp(request.to()));
			}
			List<Object> parameters = new ArrayList<>();
			for (int source = 0; source < 2; source++) {
				parameters.add(job.lastSequence());
				parameters.add(job.upperSequence());
				parameters.addAll(filterValues);
				parameters.add(request.batchSize());
			}
			parameters.add(request.batchSize());
			parameters.add(TimeOrderedUuids.next());
			parameters.add(request.keepMessageIds());
			parameters.add(request.target().destination());
			parameters.add(request.target().destination());
			parameters.add(request.target().routingKey());
			parameters.add(job.id().toString());
			long[] result = this.jdbc.queryForObject(this.sql.batch(filters.toString()),
					(rs, n) -> new long[] { rs.getLong(1), rs.getLong(2), rs.wasNull() ? 1 : 0 }, parameters.toArray());
			long count = result[0];
			Long last = (result[2] == 1) ? null : result[1];
			boolean done = count < request.batchSize();
			this.jdbc.update(this.sql.advance, last, count, done, done, job.id());
			if (done) {
				logger.info("Replay " + job.id() + " of store '" + this.storeName + "' completed: " + (job.replayed() + count) + " messages written to the outbox");
			}
			return count;
		});
		long count = (written != null) ? written : -1;
		if (count > 0 && this.isDefault) {
			this.wakeUp.committed();
		}
		return count;
	}

	/**
	 * Writes batches while any job is due, on the calling thread.
	 * @return how many messages were written
	 */
	public long runDue() {
		long total = 0;
		long batch;
		while (this.shouldContinue.getAsBoolean()) {
			batch = runBatch();
			if (batch < 0) {
				break;
			}
			total += batch;
		}
		return total;
	}

	private Duration untilNextDue() {
		Double millis = this.jdbc.queryForObject(this.sql.nextDue, Double.class);
		if (millis == null) {
			return this.pollInterval;
		}
		long wait = (long) Math.ceil(millis);
		return Duration.ofMillis(Math.max(1, Math.min(wait, this.pollInterval.toMillis())));
	}

	/**
	 * Runs {@code work} in a transaction of the transaction manager, as a {@code TransactionTemplate}
	 * does, except that a rollback that fails after the work failed (the connection is gone: the
	 * database is down, or the backend was terminated) is added to the work's failure as a suppressed
	 * exception instead of being logged at ERROR with its stack trace: the worker tells the outage.
	 */
	private <T> T inTransaction(Supplier<T> work) {
		TransactionStatus status = this.transactionManager.getTransaction(TransactionDefinition.withDefaults());
		T result;
		try {
			result = work.get();
		}
		catch (RuntimeException | Error ex) {
			try {
				this.transactionManager.rollback(status);
			}
			catch (RuntimeException | Error rollbackFailure) {
				ex.addSuppressed(rollbackFailure);
			}
			throw ex;
		}
		this.transactionManager.commit(status);
		return result;
	}

	/**
	 * Writes this store's due batches; a failure is told as this store's outage.
	 * @return how long until this store's next batch is due, at most the poll interval
	 */
	Duration pass() {
		Duration left = this.nextLook.left();
		if (left != null) {
			return left;
		}
		Duration wait;
		try {
			runDue();
			wait = untilNextDue();
		}
		catch (RuntimeException ex) {
			// a failed batch rolled back: its job's cursor stands, the next pass writes it again
			this.outages.failed(ex, this.pollInterval);
			this.nextLook.looked(this.pollInterval);
			return this.pollInterval;
		}
		this.outages.succeeded();
		this.nextLook.looked(wait);
		return wait;
	}

	private void wake() {
		this.nextLook.changed();
		this.wake.run();
	}

	private static ReplayJob job(ResultSet rs, int row) throws SQLException {
		ReplayTarget target = new ReplayTarget(rs.getString("target_destination"),
				Objects.requireNonNullElse(rs.getString("target_routing_key"), ""));
		ReplayRequest request = new ReplayRequest(rs.getString("destination"), rs.getString("message_type"),
				instant(rs, "from_time"), instant(rs, "to_time"), target, rs.getBoolean("keep_message_ids"),
				rs.getInt("batch_size"), messagesPerSecond(rs.getInt("batch_size"), rs.getLong("batch_interval_ms")));
		return new ReplayJob(rs.getObject("id", UUID.class),
				ReplayStatus.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)), request,
				rs.getLong("upper_sequence"), rs.getLong("last_sequence"), rs.getLong("replayed"), rs.getLong("batches"),
				Objects.requireNonNull(instant(rs, "created_at")), Objects.requireNonNull(instant(rs, "updated_at")),
				instant(rs, "completed_at"));
	}

	private static int messagesPerSecond(int batchSize, long intervalMillis) {
		return (intervalMillis == 0) ? 0 : (int) Math.max(1, batchSize * 1000L / intervalMillis);
	}

	private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	private static @Nullable Timestamp timestamp(@Nullable Instant instant) {
		return (instant != null) ? Timestamp.from(instant) : null;
	}

}
