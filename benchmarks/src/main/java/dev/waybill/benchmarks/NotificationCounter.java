package dev.waybill.benchmarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * Counts the commit notifications Waybill sends on a schema's channel ({@code NOTIFY} after each
 * commit that wrote outbox rows for claiming), by {@code LISTEN}ing on a connection of its own, as
 * another instance's relay would. Its thread runs until {@link #close()}.
 */
final class NotificationCounter implements AutoCloseable {

	private static final int RECEIVE_TIMEOUT_MILLIS = 200;

	private final Connection connection;

	private final AtomicLong received = new AtomicLong();

	private final Thread thread;

	private volatile boolean closed;

	NotificationCounter(TestPostgres postgres, TestSchema schema) throws SQLException {
		this.connection = postgres.connect();
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("LISTEN " + schema.tables().notifyChannel());
		}
		PGConnection listening = this.connection.unwrap(PGConnection.class);
		this.thread = new Thread(() -> receive(listening), "bench-notifications");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Returns the notifications received so far.
	 * @return the count
	 */
	long received() {
		return this.received.get();
	}

	private void receive(PGConnection listening) {
		while (!this.closed) {
			try {
				PGNotification[] notifications = listening.getNotifications(RECEIVE_TIMEOUT_MILLIS);
				if (notifications != null) {
					this.received.addAndGet(notifications.length);
				}
			}
			catch (SQLException ex) {
				if (!this.closed) {
					System.err.println("Counting commit notifications failed: " + ex);
				}
				return;
			}
		}
	}

	@Override
	public void close() throws Exception {
		this.closed = true;
		this.thread.join();
		this.connection.close();
	}

}
