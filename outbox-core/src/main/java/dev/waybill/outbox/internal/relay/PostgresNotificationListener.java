package dev.waybill.outbox.internal.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.context.SmartLifecycle;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;

/**
 * Wakes the relay when any instance commits outbox rows: {@code LISTEN}s on the outbox's
 * notification channel (see {@link dev.waybill.kernel.OutboxTables#notifyChannel()}) on one
 * connection of its own, held for as long as it runs, and signals the {@link RelayWakeUp} for
 * each notification. A lost connection is reopened with backoff; meanwhile the relay's poll
 * covers the gap.
 * <p>
 * Where {@code LISTEN} cannot work (a connection behind a transaction-mode pooler keeps no
 * session), it polls instead: it signals the relay every poll interval of its own, which costs one
 * claim that finds nothing when nothing waits, and holds no connection. {@link WakeUpMode#AUTO}
 * finds out which at start-up ({@link NotificationProbe}) and says so at INFO.
 *
 * @since 0.1
 */
public final class PostgresNotificationListener implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(PostgresNotificationListener.class);

	private static final int RECEIVE_TIMEOUT_MILLIS = 500;

	private static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

	/** How long the start-up probe's notification may take: commits' usually take a millisecond. */
	private static final Duration PROBE_WAIT = Duration.ofSeconds(2);

	private final DataSource dataSource;

	private final String channel;

	private final RelayWakeUp wakeUp;

	private final @Nullable String ownSender;

	private volatile boolean running;

	private volatile boolean listening;

	private volatile WakeUpMode mode = WakeUpMode.LISTEN;

	private volatile @Nullable WakeUpMode inEffect;

	private volatile @Nullable DataSource senders;

	private volatile Consumer<String> storeSignals = (store) -> {
	};

	private volatile Duration pollInterval = Duration.ofMillis(100);

	private Thread thread;

	private volatile WaybillThreads threads = WaybillThreads.platform();

	/**
	 * Creates a listener.
	 * @param dataSource where to take the listening connection from
	 * @param channel the channel, a validated identifier
	 * @param wakeUp signalled on each notification
	 */
	public PostgresNotificationListener(DataSource dataSource, String channel, RelayWakeUp wakeUp) {
		this(dataSource, channel, wakeUp, null);
	}

	/**
	 * Creates a listener that skips the notifications of this instance's own
	 * {@link PostgresCommitNotifier}: the commits they announce woke this instance's relay
	 * in-process already ({@link RelayWakeUp#committed()}), and each would cost the relay a claim
	 * that finds nothing.
	 * @param dataSource where to take the listening connection from
	 * @param channel the channel, a validated identifier
	 * @param wakeUp signalled on each notification of another instance
	 * @param ownSender the {@link PostgresCommitNotifier#senderId()} of this instance's notifier,
	 * whose notifications are skipped, or {@literal null} to skip none
	 * @since 0.1
	 */
	public PostgresNotificationListener(DataSource dataSource, String channel, RelayWakeUp wakeUp,
			@Nullable String ownSender) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.channel = Objects.requireNonNull(channel, "channel must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.ownSender = ownSender;
	}

	/**
	 * Sets how the relay is woken: {@link WakeUpMode#LISTEN} (the default),
	 * {@link WakeUpMode#POLL}, or {@link WakeUpMode#AUTO}, which tries {@code LISTEN} at start-up
	 * with a notification sent from {@code senders}, the way commits send theirs.
	 * @param mode the mode
	 * @param senders the DataSource commits notify through (the application's), used by
	 * {@link WakeUpMode#AUTO}
	 * @param pollInterval how often {@link WakeUpMode#POLL} wakes the relay
	 */
	public void setMode(WakeUpMode mode, DataSource senders, Duration pollInterval) {
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.senders = Objects.requireNonNull(senders, "senders must not be null");
		if (pollInterval.isNegative() || pollInterval.isZero()) {
			throw new IllegalArgumentException("pollInterval must be positive, was " + pollInterval);
		}
		this.pollInterval = pollInterval;
	}

	/**
	 * Returns the mode in effect: {@link WakeUpMode#LISTEN} or {@link WakeUpMode#POLL}, or
	 * {@literal null} while {@link WakeUpMode#AUTO} is still finding out.
	 * @return the mode in effect
	 */
	public @Nullable WakeUpMode modeInEffect() {
		return this.inEffect;
	}

	/**
	 * Sets where the listener's threads come from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
	}

	/**
	 * Sets what is told the name of another store that another instance's notification names
	 * ({@link PostgresCommitNotifier#notifyStore}), so that this relay claims from it at once.
	 * @param storeSignals told each store's name
	 * @since 0.1
	 */
	public void setStoreSignals(Consumer<String> storeSignals) {
		this.storeSignals = Objects.requireNonNull(storeSignals, "storeSignals must not be null");
	}

	/**
	 * Wakes the relay for what other instances' notifications say: the default store's commits (a
	 * payload of the sender alone, or {@value PostgresCommitNotifier#DEFAULT_STORE} among its
	 * stores), and each other store they name.
	 */
	private void deliver(PGNotification @Nullable [] notifications) {
		if (notifications == null) {
			return;
		}
		boolean defaultStore = false;
		for (PGNotification notification : notifications) {
			String payload = notification.getParameter();
			int stores = payload.indexOf(' ');
			String sender = (stores < 0) ? payload : payload.substring(0, stores);
			if (this.ownSender != null && this.ownSender.equals(sender)) {
				continue;
			}
			if (stores < 0) {
				defaultStore = true;
				continue;
			}
			for (String store : payload.substring(stores + 1).split(",")) {
				if (store.equals(PostgresCommitNotifier.DEFAULT_STORE)) {
					defaultStore = true;
				}
				else if (!store.isEmpty()) {
					this.storeSignals.accept(store);
				}
			}
		}
		if (defaultStore) {
			this.wakeUp.signal();
		}
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.thread = this.threads.newThread("waybill-outbox-listener", this::run);
		this.thread.start();
	}

	/**
	 * Returns {@link WaybillPhases#LISTENER}.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.LISTENER;
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		if (this.thread != null) {
			try {
				this.thread.join(RECEIVE_TIMEOUT_MILLIS * 4L);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Tells whether the listening connection is currently established.
	 * @return whether notifications are being received
	 */
	public boolean isListening() {
		return this.listening;
	}

	private void run() {
		checkPreparedStatements();
		WakeUpMode decided = (this.mode == WakeUpMode.AUTO) ? decide() : this.mode;
		if (this.mode == WakeUpMode.POLL) {
			logger.info("Waybill's relay polls for other instances' commits every " + this.pollInterval
					+ " (waybill.notifications.mode=poll)");
		}
		else if (this.mode == WakeUpMode.LISTEN && this.senders != null) {
			logger.info("Waybill's relay is woken by PostgreSQL LISTEN/NOTIFY on channel " + this.channel
					+ " (waybill.notifications.mode=listen)");
		}
		this.inEffect = decided;
		if (decided == WakeUpMode.POLL) {
			poll();
		}
		else {
			listen();
		}
	}

	/** Runs the probe and says what it found; a database that cannot be asked gets LISTEN, retried. */
	private WakeUpMode decide() {
		DataSource senders = Objects.requireNonNull(this.senders, "senders");
		try (Connection connection = this.dataSource.getConnection()) {
			NotificationProbe.Outcome outcome = new NotificationProbe(senders, this.channel, PROBE_WAIT).probe(connection);
			if (outcome.listens()) {
				logger.info("Waybill's relay is woken by PostgreSQL LISTEN/NOTIFY on channel " + this.channel
						+ ": a test notification arrived after " + millis(outcome.took()));
				return WakeUpMode.LISTEN;
			}
			logger.info("Waybill's relay polls for other instances' commits every " + this.pollInterval
					+ " instead of listening on channel " + this.channel + ", because " + outcome.why()
					+ ". A message another instance commits, and does not publish itself, waits up to "
					+ this.pollInterval + " longer for this relay; each poll is one claim. To listen, set "
					+ "waybill.notifications.url to a connection straight to PostgreSQL (or a session-mode pool).");
			return WakeUpMode.POLL;
		}
		catch (SQLException | RuntimeException ex) {
			logger.info("Waybill could not test PostgreSQL LISTEN/NOTIFY at start-up (" + ex.getMessage()
					+ "); it listens on channel " + this.channel + " and retries, polling every relay poll interval meanwhile");
			return WakeUpMode.LISTEN;
		}
	}

	/**
	 * Warns when the application's connections keep no session (a transaction-mode pooler) while
	 * the driver names server-side prepared statements: PgBouncer before 1.21 hands them to other
	 * clients' sessions, where they do not exist, and every statement Waybill repeats fails.
	 */
	private void checkPreparedStatements() {
		DataSource senders = this.senders;
		if (senders == null) {
			return;
		}
		try (Connection connection = senders.getConnection()) {
			int threshold = connection.unwrap(PGConnection.class).getPrepareThreshold();
			if (threshold <= 0) {
				return;
			}
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			String evidence = NotificationProbe.sessionlessEvidence(connection, senders);
			if (evidence != null) {
				logger.warn("Waybill's database connections keep no session, as behind a transaction-mode pooler ("
						+ evidence + "), but the PostgreSQL driver prepares statements on the server after "
						+ threshold + " uses: through PgBouncer before 1.21 (or without max_prepared_statements) they "
						+ "fail with 'prepared statement \"S_1\" does not exist' and Waybill's work waits as if the "
						+ "database were down. Add prepareThreshold=0 to spring.datasource.url.");
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Waybill could not check how the driver prepares statements: " + ex);
		}
	}

	private static String millis(@Nullable Duration took) {
		return (took == null) ? "?" : String.format(java.util.Locale.ROOT, "%.1f ms", took.toNanos() / 1e6);
	}

	private void poll() {
		while (this.running) {
			sleep(this.pollInterval);
			if (this.running) {
				this.wakeUp.signal();
			}
		}
	}

	private void listen() {
		Duration delay = Duration.ofMillis(500);
		// When the connection was lost (or could not be opened), while it is being reopened: one
		// warning when that starts, one line when it ends, the retries between at debug level.
		long lostAt = 0;
		boolean lost = false;
		while (this.running) {
			try (Connection connection = this.dataSource.getConnection()) {
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					// Idle by design: a role's or database's idle_session_timeout (PostgreSQL 14+) ended it
					// every few seconds, a warning and a reconnect each time.
					statement.execute("SELECT set_config('idle_session_timeout', '0', false) "
							+ "WHERE current_setting('server_version_num')::int >= 140000");
					statement.execute("LISTEN " + this.channel);
				}
				PGConnection postgres = connection.unwrap(PGConnection.class);
				this.listening = true;
				delay = Duration.ofMillis(500);
				if (lost) {
					lost = false;
					logger.info("Waybill listens for PostgreSQL notifications again, after "
							+ Duration.ofNanos(System.nanoTime() - lostAt).withNanos(0) + " without");
				}
				// Commits that happened while the connection was down were not heard: look once.
				this.wakeUp.signal();
				while (this.running) {
					deliver(postgres.getNotifications(RECEIVE_TIMEOUT_MILLIS));
				}
			}
			catch (SQLException | RuntimeException ex) {
				this.listening = false;
				if (this.running) {
					if (!lost) {
						lost = true;
						lostAt = System.nanoTime();
						logger.warn("Waybill lost its PostgreSQL notification connection, reconnecting with backoff up to "
								+ MAX_RECONNECT_DELAY + " (the relay polls meanwhile): " + ex.getMessage());
					}
					else if (logger.isDebugEnabled()) {
						logger.debug("Waybill could not reopen its PostgreSQL notification connection, trying again in "
								+ delay + ": " + ex.getMessage());
					}
					sleep(delay);
					delay = delay.multipliedBy(2).compareTo(MAX_RECONNECT_DELAY) > 0 ? MAX_RECONNECT_DELAY
							: delay.multipliedBy(2);
				}
			}
			finally {
				this.listening = false;
			}
		}
	}

	private void sleep(Duration delay) {
		long deadline = System.nanoTime() + delay.toNanos();
		long left;
		while (this.running && (left = deadline - System.nanoTime()) > 0) {
			try {
				TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

}
