package dev.waybill.outbox.internal.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Hands out its target's connections in auto-commit mode, for the statements Waybill runs outside
 * any transaction (the relay's settles, renewals, releases, redrives): each is meant to commit on
 * its own. A pool configured not to auto-commit ({@code spring.datasource.hikari.auto-commit=false},
 * common with Hibernate) would otherwise leave them in a transaction nobody commits, rolled back
 * when the connection goes back to the pool. A connection the pool gave out with auto-commit off
 * is switched on and switched back off when it is closed, so the pool gets it back as it gave it.
 *
 * @since 0.1
 */
final class AutoCommitDataSource extends DelegatingDataSource {

	AutoCommitDataSource(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return autoCommitting(obtainTargetDataSource().getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return autoCommitting(obtainTargetDataSource().getConnection(username, password));
	}

	private static Connection autoCommitting(Connection connection) throws SQLException {
		try {
			if (connection.getAutoCommit()) {
				return connection; // the pool's default: no proxy, nothing to restore
			}
			connection.setAutoCommit(true);
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.close();
			}
			catch (SQLException | RuntimeException closing) {
				ex.addSuppressed(closing);
			}
			throw ex;
		}
		return (Connection) Proxy.newProxyInstance(AutoCommitDataSource.class.getClassLoader(),
				new Class<?>[] { Connection.class }, new Restoring(connection));
	}

	/** Switches auto-commit back off before the connection goes back to its pool. */
	private static final class Restoring implements InvocationHandler {

		private final Connection target;

		private boolean closed;

		Restoring(Connection target) {
			this.target = target;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			switch (method.getName()) {
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "close":
					if (!this.closed) {
						this.closed = true;
						try {
							if (!this.target.isClosed() && this.target.getAutoCommit()) {
								this.target.setAutoCommit(false);
							}
						}
						catch (SQLException | RuntimeException ex) {
							// a broken connection: the pool discards it
						}
						this.target.close();
					}
					return null;
				case "isClosed":
					return this.closed || this.target.isClosed();
				default:
					try {
						return method.invoke(this.target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
			}
		}

	}

}
