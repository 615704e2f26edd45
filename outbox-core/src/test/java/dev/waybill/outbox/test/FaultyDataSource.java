package dev.waybill.outbox.test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A DataSource whose connections can be made to fail at commit (rolled back, or committed but
 * reported failed), and that can be made unreachable ({@code getConnection} fails with SQLState
 * 08001) to simulate a database outage.
 */
public final class FaultyDataSource extends DelegatingDataSource {

	/** What the next armed commit does. */
	public enum CommitFault {
		/** Roll back, then throw: the commit failed. */
		ROLLED_BACK,
		/** Commit, then throw: the client cannot tell that it committed. */
		COMMITTED_BUT_REPORTED_FAILED
	}

	/** Whether {@code getConnection} fails, as against a database out of reach. */
	public volatile boolean outage;

	/** Commits to let through before the fault fires; negative = disarmed. */
	private final AtomicInteger commitsBeforeFault = new AtomicInteger(-1);

	private volatile CommitFault fault = CommitFault.ROLLED_BACK;

	/** Commits that reached the database. */
	public final AtomicInteger commits = new AtomicInteger();

	/** Commits failed on purpose. */
	public final AtomicInteger faults = new AtomicInteger();

	/**
	 * Wraps a DataSource.
	 * @param target the DataSource that serves the connections
	 */
	public FaultyDataSource(DataSource target) {
		super(target);
	}

	/**
	 * Lets {@code okCommits} commits through, then fails the next one.
	 * @param okCommits commits to let through first
	 * @param fault how the next one fails
	 */
	public void failCommitAfter(int okCommits, CommitFault fault) {
		this.fault = fault;
		this.commitsBeforeFault.set(okCommits);
	}

	@Override
	public Connection getConnection() throws SQLException {
		if (this.outage) {
			throw new SQLException("injected outage: database unreachable", "08001");
		}
		return wrap(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		if (this.outage) {
			throw new SQLException("injected outage: database unreachable", "08001");
		}
		return wrap(super.getConnection(username, password));
	}

	private Connection wrap(Connection target) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (method.getName().equals("commit") && !target.getAutoCommit()) {
				int left = this.commitsBeforeFault.getAndUpdate((n) -> (n > 0) ? n - 1 : (n == 0 ? -1 : n));
				if (left == 0) {
					this.faults.incrementAndGet();
					if (this.fault == CommitFault.ROLLED_BACK) {
						target.rollback();
						throw new SQLException("injected commit failure (rolled back)", "08006");
					}
					target.commit();
					this.commits.incrementAndGet();
					throw new SQLException("injected commit failure (actually committed)", "08006");
				}
				this.commits.incrementAndGet();
			}
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
		return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] { Connection.class },
				handler);
	}

}
