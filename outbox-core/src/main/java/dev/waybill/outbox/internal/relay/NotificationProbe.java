package dev.waybill.outbox.internal.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Finds out at start-up whether {@code LISTEN} works on the listener's connection: a connection
 * behind a transaction-mode pooler runs each statement on whichever server connection is free, so
 * the session that would listen is not the one that stays with the client, and notifications never
 * reach it. Two checks, both needed: the connection keeps one backend across transactions (its
 * backend is not handed to another connection, and does not change), and a notification sent the
 * way commits send theirs (through the application's {@code DataSource}) arrives on it.
 */
final class NotificationProbe {

	/** How many transactions must run on one backend before the connection counts as a session. */
	private static final int SESSION_CHECKS = 3;

	/** The payload's prefix, so that a listener of another instance can tell a probe from a commit. */
	static final String PAYLOAD_PREFIX = "waybill-probe:";

	private final DataSource senders;

	private final String channel;

	private final Duration wait;

	/**
	 * @param senders where the probe's notification is sent from, as commits send theirs
	 * @param channel the channel, a validated identifier
	 * @param wait how long the notification may take to arrive
	 */
	NotificationProbe(DataSource senders, String channel, Duration wait) {
		this.senders = senders;
		this.channel = channel;
		this.wait = wait;
	}

	/**
	 * Runs both checks on {@code listening} (in auto-commit), leaving it listening to nothing.
	 * @param listening the connection the listener would hold
	 * @return what was found
	 * @throws SQLException when a statement failed: nothing was found out
	 */
	Outcome probe(Connection listening) throws SQLException {
		listening.setAutoCommit(true);
		String evidence = sessionlessEvidence(listening, this.senders);
		if (evidence != null) {
			return new Outcome(false, "its connection keeps no database session, as behind a transaction-mode pooler: "
					+ evidence, null);
		}
		String payload = PAYLOAD_PREFIX + UUID.randomUUID();
		try (Statement statement = listening.createStatement()) {
			statement.execute("LISTEN " + this.channel);
		}
		try {
			long sent = System.nanoTime();
			try (Connection sender = this.senders.getConnection();
					PreparedStatement notify = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
				if (!sender.getAutoCommit()) {
					sender.setAutoCommit(true);
				}
				notify.setString(1, this.channel);
				notify.setString(2, payload);
				notify.execute();
			}
			PGConnection postgres = listening.unwrap(PGConnection.class);
			long deadline = sent + this.wait.toNanos();
			long left;
			while ((left = deadline - System.nanoTime()) > 0) {
				PGNotification[] notifications = postgres.getNotifications((int) Math.max(1, left / 1_000_000));
				if (notifications != null) {
					for (PGNotification notification : notifications) {
						if (payload.equals(notification.getParameter())) {
							return new Outcome(true, null, Duration.ofNanos(System.nanoTime() - sent));
						}
					}
				}
			}
			return new Outcome(false, "a notification sent at start-up did not arrive within " + this.wait
					+ " on its connection", null);
		}
		finally {
			try (Statement statement = listening.createStatement()) {
				statement.execute("UNLISTEN " + this.channel);
			}
		}
	}

	/**
	 * Tells whether {@code connection} keeps no session between its transactions: its server
	 * session is handed to another connection of {@code others} as soon as it is free, or it runs
	 * consecutive transactions on different ones. A pooler hands a server connection that a client
	 * just released to the next client that asks; a direct connection's backend is never another
	 * connection's.
	 * @param connection the connection, in auto-commit
	 * @param others where another connection comes from
	 * @return what showed it, or {@literal null} when the connection kept one session
	 * @throws SQLException when a statement failed
	 */
	static @Nullable String sessionlessEvidence(Connection connection, DataSource others) throws SQLException {
		int backend = backendPid(connection);
		try (Connection other = others.getConnection()) {
			boolean autoCommit = other.getAutoCommit();
			other.setAutoCommit(false);
			try {
				if (backendPid(other) == backend) {
					return "another connection's transaction ran on the server session it had just used";
				}
			}
			finally {
				other.rollback();
				other.setAutoCommit(autoCommit);
			}
		}
		for (int i = 1; i < SESSION_CHECKS; i++) {
			int pid = backendPid(connection);
			if (pid != backend) {
				return "consecutive transactions ran on different server sessions (backends " + backend + " and " + pid + ")";
			}
		}
		return null;
	}

	private static int backendPid(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
			result.next();
			return result.getInt(1);
		}
	}

	/**
	 * What the probe found.
	 * @param listens whether {@code LISTEN} works on the connection
	 * @param why why it does not, or {@literal null}
	 * @param took how long the probe's notification took, or {@literal null}
	 */
	record Outcome(boolean listens, @Nullable String why, @Nullable Duration took) {
	}

}
