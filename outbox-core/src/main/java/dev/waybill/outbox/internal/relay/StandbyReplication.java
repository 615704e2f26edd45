package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Holds what the relay publishes until enough streaming standbys have the transactions that wrote
 * it. With asynchronous replication a primary acknowledges a commit before any standby has it; if
 * the primary is lost and a standby promoted, that transaction is gone, business rows and outbox
 * rows alike, and a message already published for it would announce something that never
 * happened. So, before publishing scopes it claimed or was handed after their commits, the relay
 * reads the primary's WAL insert position (every commit it can see is before it) and waits until
 * {@code pg_stat_replication} shows that many standbys have flushed WAL up to it.
 * <p>
 * Off ({@link #NONE}) by default: with synchronous replication, or storage-level replication
 * (managed high-availability instances), an acknowledged commit survives a failover anyway.
 */
final class StandbyReplication {

	/** Publishes without waiting for any standby. */
	static final StandbyReplication NONE = new StandbyReplication(null, 0);

	private static final Log logger = LogFactory.getLog(StandbyReplication.class);

	/** How long the relay waits before it says that it is waiting. */
	private static final Duration TELL_AFTER = Duration.ofSeconds(1);

	/**
	 * The pause between the first polls of the standbys' positions: a standby that streams has
	 * flushed within about a millisecond, so the first polls are close together.
	 */
	private static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

	/** Polls at {@link #FIRST_PAUSE_NANOS} before the pauses grow. */
	private static final int CLOSE_POLLS = 10;

	private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private final @Nullable JdbcTemplate jdbc;

	private final int standbys;

	/** When the wait under way for longest began ({@link System#nanoTime()}), or 0 when none waits. */
	private final AtomicLong waitingSince = new AtomicLong();

	private volatile boolean told;

	private StandbyReplication(@Nullable JdbcTemplate jdbc, int standbys) {
		this.jdbc = jdbc;
		this.standbys = standbys;
	}

	/**
	 * Waits for standbys of the database behind {@code dataSource}.
	 * @param dataSource the relay's database, the primary
	 * @param standbys how many standbys must have flushed a transaction before its messages are
	 * published, at least 1
	 * @return the wait
	 * @throws IllegalStateException when the database's role may not read the standbys' positions
	 */
	static StandbyReplication of(DataSource dataSource, int standbys) {
		if (standbys < 1) {
			throw new IllegalArgumentException("standbys must be at least 1, was " + standbys);
		}
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		Boolean readable = jdbc.queryForObject("SELECT rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', "
				+ "'MEMBER') FROM pg_roles WHERE rolname = current_user", Boolean.class);
		if (!Boolean.TRUE.equals(readable)) {
			throw new IllegalStateException("waybill.outbox.relay.await-standbys=" + standbys + " needs the standbys' "
					+ "WAL positions in pg_stat_replication, which PostgreSQL shows the database role only when it is a "
					+ "superuser or a member of pg_read_all_stats (or pg_monitor): GRANT pg_monitor TO <role>");
		}
		return new StandbyReplication(jdbc, standbys);
	}

	/**
	 * Returns whether a wait is on.
	 * @return {@literal false} for {@link #NONE}
	 */
	boolean enabled() {
		return this.jdbc != null;
	}

	/**
	 * Waits until the standbys have every transaction committed so far.
	 * @param running whether the relay still runs; the wait ends when it stops
	 * @return {@literal true} once they have, {@literal false} when the relay stopped first
	 */
	boolean awaitCommitted(BooleanSupplier running) throws InterruptedException {
		JdbcTemplate jdbc = this.jdbc;
		if (jdbc == null) {
			return true;
		}
		String position = jdbc.queryForObject("SELECT pg_current_wal_insert_lsn()::text", String.class);
		long started = System.nanoTime();
		this.waitingSince.compareAndSet(0, started);
		long pause = FIRST_PAUSE_NANOS;
		try {
			for (int polls = 1; running.getAsBoolean(); polls++) {
				Integer flushed = jdbc.queryForObject(
						"SELECT count(*) FROM pg_stat_replication WHERE flush_lsn >= ?::pg_lsn", Integer.class, position);
				if (flushed != null && flushed >= this.standbys) {
					replicated();
					return true;
				}
				if (!this.told && stalledFor() != null) {
					this.told = true;
					logger.warn("Waybill relay is holding messages until " + this.standbys + " standby(s) have flushed "
							+ "WAL up to " + position + " (waybill.outbox.relay.await-standbys); " + flushed
							+ " have: check that the standbys stream (pg_stat_replication on the primary)");
				}
				TimeUnit.NANOSECONDS.sleep(pause); // the standbys' position is polled; nothing signals it
				if (polls >= CLOSE_POLLS) {
					pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
				}
			}
			return false;
		}
		finally {
			this.waitingSince.compareAndSet(started, 0);
		}
	}

	/** Ends the warning's story, if one was told: what was held goes out now. */
	private void replicated() {
		if (this.told) {
			this.told = false;
			logger.info("Waybill relay publishes again: " + this.standbys + " standby(s) have the commits");
		}
	}

	/**
	 * Returns how long the relay has been waiting for standbys, when longer than streaming
	 * standbys take.
	 * @return the longest wait under way, or {@literal null} when none is or it is shorter than a
	 * second
	 */
	@Nullable Duration stalledFor() {
		long since = this.waitingSince.get();
		Duration waiting = (since == 0) ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
		return (waiting.compareTo(TELL_AFTER) > 0) ? waiting : null;
	}

}
