package dev.waybill.outbox.internal.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;

/**
 * Tells the relays of other instances that outbox rows were committed, with a PostgreSQL
 * {@code NOTIFY} on the outbox's channel (see {@link PostgresNotificationListener}), sent after the
 * business transaction committed and from a connection of its own.
 * <p>
 * Why not from the business transaction (a trigger or a {@code NOTIFY} before commit): PostgreSQL
 * serializes the commits of all transactions that notified behind one lock held across their
 * commit record's flush, so a notifying transaction gives up group commit. Measured with pgbench,
 * 8 clients inserting two rows each: about 4,600 commits/s without the notify, 800-1,300 with it.
 * Sent afterwards, one notification covers every commit since the last one: requests coalesce on
 * one background thread, each notification is its own tiny transaction with
 * {@code synchronous_commit = off} (a lost notification only costs a poll interval), and
 * nothing is ever waited on by the publishing thread.
 * <p>
 * Notifications are paced: the first request after a quiet spell is sent at once, but two are
 * never sent less than {@link #DEFAULT_MIN_INTERVAL} apart; requests made meanwhile share the
 * next one, sent when the interval ends (none is dropped). Without it a notification, being
 * quick, followed nearly every commit under load (0.7 per business transaction at 8 writers),
 * and each is a transaction of its own: measured with pgbench, about 30-45 us of PostgreSQL CPU
 * per {@code NOTIFY} against 16 us for a {@code SELECT 1}, plus the connection's borrow and
 * round trip here, on the CPU the business transactions share. At most one per millisecond
 * costs the relays of other instances at most that millisecond, and only while commits come
 * faster than one per millisecond (the relay of this instance is woken in-process).
 *
 * @since 0.1
 */
public final class PostgresCommitNotifier implements Runnable, AutoCloseable {

	private static final Log logger = LogFactory.getLog(PostgresCommitNotifier.class);

	private static final String NOTIFY = "SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)";

	/** The payload of every notification it sends, so that this instance's listener can skip them. */
	private final String senderId = UUID.randomUUID().toString();

	private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

	/** How a payload names the default store among others. */
	static final String DEFAULT_STORE = "default";

	/** Below PostgreSQL's limit of 8000 bytes a payload; store names are ASCII. */
	private static final int MAX_PAYLOAD_CHARACTERS = 7900;

	/** The shortest time between the starts of two notifications. */
	public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofMillis(1);

	private final long minIntervalNanos;

	/** When the last notification started ({@link System#nanoTime()}); the sending thread only. */
	private long lastSentAt;

	private boolean sentBefore;

	private final DataSource dataSource;

	private final String channel;

	private final Object lock = new Object();

	private final Thread thread;

	private boolean requested;

	/** Whether the default store's commits asked for the notification being gathered; under the lock. */
	private boolean defaultRequested;

	/** The other stores whose commits asked for it; under the lock. */
	private final Set<String> requestedStores = new LinkedHashSet<>();

	private boolean closed;

	private volatile long sent;

	private boolean failing;

	/**
	 * Creates a notifier and starts its thread.
	 * @param dataSource where each notification borrows a connection from
	 * @param channel the channel, a validated identifier
	 */
	public PostgresCommitNotifier(DataSource dataSource, String channel) {
		this(dataSource, channel, WaybillThreads.platform());
	}

	/**
	 * Creates a notifier and starts its thread.
	 * @param dataSource where each notification borrows a connection from
	 * @param channel the channel, a validated identifier
	 * @param threads where its thread ({@code waybill-notify-<channel>}) comes from
	 */
	public PostgresCommitNotifier(DataSource dataSource, String channel, WaybillThreads threads) {
		this(dataSource, channel, threads, DEFAULT_MIN_INTERVAL);
	}

	/**
	 * Creates a notifier that sends at most one notification per {@code minInterval} and starts
	 * its thread.
	 * @param dataSource where each notification borrows a connection from
	 * @param channel the channel, a validated identifier
	 * @param threads where its thread ({@code waybill-notify-<channel>}) comes from
	 * @param minInterval the shortest time between two notifications, zero or more
	 * @since 0.1
	 */
	public PostgresCommitNotifier(DataSource dataSource, String channel, WaybillThreads threads, Duration minInterval) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.channel = Objects.requireNonNull(channel, "channel must not be null");
		if (minInterval.isNegative()) {
			throw new IllegalArgumentException("minInterval must not be negative, was " + minInterval);
		}
		this.minIntervalNanos = minInterval.toNanos();
		this.thread = threads.newThread("waybill-notify-" + channel, this::sendWhileOpen);
		this.thread.start();
	}

	/**
	 * Requests a notification: returns at once; requests made before it is sent share it.
	 */
	@Override
	public void run() {
		synchronized (this.lock) {
			this.requested = true;
			this.defaultRequested = true;
			this.lock.notifyAll();
		}
	}

	/**
	 * Requests a notification naming a store other than the default one, so that the other
	 * instances' relays claim from that store at once rather than at their next poll; returns at
	 * once, and requests made before it is sent share it.
	 * @param store the store's name
	 * @since 0.1
	 */
	public void notifyStore(String store) {
		synchronized (this.lock) {
			this.requested = true;
			this.requestedStores.add(store);
			this.lock.notifyAll();
		}
	}

	/**
	 * The payload: the sender's id alone for the default store's commits; with the other stores
	 * after a space, separated by commas ({@value #DEFAULT_STORE} among them when the default
	 * store's commits asked too). Stores that would make it longer than PostgreSQL takes are left
	 * to the other instances' polls.
	 */
	private String payload(boolean defaultStore, Set<String> stores) {
		if (stores.isEmpty()) {
			return this.senderId;
		}
		StringBuilder payload = new StringBuilder(this.senderId).append(' ');
		if (defaultStore) {
			payload.append(DEFAULT_STORE).append(',');
		}
		for (String store : stores) {
			if (payload.length() + store.length() + 1 > MAX_PAYLOAD_CHARACTERS) {
				break;
			}
			payload.append(store).append(',');
		}
		payload.setLength(payload.length() - 1);
		return payload.toString();
	}

	/**
	 * Returns how many notifications were sent, for tests and diagnostics.
	 * @return the count
	 */
	public long sent() {
		return this.sent;
	}

	/**
	 * Stops the thread; requests not yet sent are dropped (relays still poll).
	 */
	@Override
	public void close() {
		synchronized (this.lock) {
			this.closed = true;
			this.lock.notifyAll();
		}
		LockSupport.unpark(this.thread); // if it waits out an interval
		try {
			this.thread.join(Duration.ofSeconds(5).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void sendWhileOpen() {
		while (awaitRequest()) {
			Requests taken = paceAndTakeRequests();
			if (taken == null) {
				return;
			}
			try {
				this.lastSentAt = System.nanoTime();
				this.sentBefore = true;
				notifyChannel(payload(taken.defaultStore(), taken.stores()));
				this.sent++;
				if (this.failing) {
					this.failing = false;
					logger.info("Waybill commit notifications on '" + this.channel + "' work again");
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (!this.failing) {
					this.failing = true;
					logger.warn("Waybill could not notify other instances' relays on '" + this.channel
							+ "'; they will find the messages at their next poll: " + ex.getMessage());
				}
				again(taken); // after a pause
				if (!pause()) {
					return;
				}
			}
		}
	}

	private boolean awaitRequest() {
		synchronized (this.lock) {
			while (!this.requested && !this.closed) {
				try {
					this.lock.wait();
				}
				catch (InterruptedException ex) {
					return false;
				}
			}
			this.requested = false;
			return !this.closed;
		}
	}

	/**
	 * Waits until the interval since the last notification has passed, then takes the requests
	 * made meanwhile too: the notification about to be sent follows their commits, so it covers
	 * them. A request made after this returns gets a notification of its own.
	 * @return what was asked for, or {@literal null} once closed
	 */
	private @Nullable Requests paceAndTakeRequests() {
		if (this.sentBefore) {
			long deadline = this.lastSentAt + this.minIntervalNanos;
			for (long wait = deadline - System.nanoTime(); wait > 0; wait = deadline - System.nanoTime()) {
				LockSupport.parkNanos(this, wait);
				if (isClosed()) {
					return null;
				}
			}
		}
		synchronized (this.lock) {
			this.requested = false;
			Requests taken = new Requests(this.defaultRequested, Set.copyOf(this.requestedStores));
			this.defaultRequested = false;
			this.requestedStores.clear();
			return this.closed ? null : taken;
		}
	}

	/** Asks again for what a notification that failed was to say. */
	private void again(Requests taken) {
		synchronized (this.lock) {
			this.requested = true;
			this.defaultRequested |= taken.defaultStore();
			this.requestedStores.addAll(taken.stores());
			this.lock.notifyAll();
		}
	}

	/** What the commits since the last notification asked for. */
	private record Requests(boolean defaultStore, Set<String> stores) {
	}

	private boolean isClosed() {
		synchronized (this.lock) {
			return this.closed;
		}
	}

	private boolean pause() {
		synchronized (this.lock) {
			try {
				this.lock.wait(RETRY_DELAY.toMillis());
			}
			catch (InterruptedException ex) {
				return false;
			}
			return !this.closed;
		}
	}

	/**
	 * Returns the payload of every notification this notifier sends: a listener of the same
	 * instance, whose relay is woken in-process by each commit already, skips them
	 * ({@link PostgresNotificationListener#PostgresNotificationListener(DataSource, String, RelayWakeUp, String)}).
	 * @return a random id, fixed for the notifier's life
	 * @since 0.1
	 */
	public String senderId() {
		return this.senderId;
	}

	private void notifyChannel(String payload) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			try (PreparedStatement statement = connection.prepareStatement(NOTIFY)) {
				statement.setString(1, this.channel);
				statement.setString(2, payload);
				statement.execute();
			}
			finally {
				if (!autoCommit) {
					connection.setAutoCommit(false);
				}
			}
		}
	}

}
