package dev.waybill.outbox.internal.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
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
 *
 * @since 0.1
 */
public final class PostgresNotificationListener implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(PostgresNotificationListener.class);

	private static final int RECEIVE_TIMEOUT_MILLIS = 500;

	private static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

	private final DataSource dataSource;

	private final String channel;

	private final RelayWakeUp wakeUp;

	private final @Nullable String ownSender;

	private volatile boolean running;

	private volatile boolean listening;

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
	 * Sets where the listener's threads come from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
	}

	private boolean fromAnotherInstance(PGNotification @Nullable [] notifications) {
		if (notifications == null) {
			return false;
		}
		for (PGNotification notification : notifications) {
			if (this.ownSender == null || !this.ownSender.equals(notification.getParameter())) {
				return true;
			}
		}
		return false;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.thread = this.threads.newThread("waybill-outbox-listener", this::listen);
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
					PGNotification[] notifications = postgres.getNotifications(RECEIVE_TIMEOUT_MILLIS);
					if (fromAnotherInstance(notifications)) {
						this.wakeUp.signal();
					}
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
		while (this.running && System.nanoTime() < deadline) {
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

}
