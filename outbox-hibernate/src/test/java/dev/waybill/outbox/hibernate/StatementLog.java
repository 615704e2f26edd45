package dev.waybill.outbox.hibernate;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import javax.sql.DataSource;

/**
 * Wraps a DataSource and records, for the test thread that started recording, every connection
 * taken and every round-trip of a prepared statement: {@code executeBatch} (with the number of
 * rows batched) and the single executions.
 */
final class StatementLog {

	/** One round-trip to the database. */
	record Execution(String sql, String method, int batchedRows) {

		boolean touches(String table) {
			return this.sql.toLowerCase(Locale.ROOT).contains(table);
		}

	}

	private static final Set<String> EXECUTIONS = Set.of("execute", "executeUpdate", "executeQuery", "executeBatch",
			"executeLargeUpdate", "executeLargeBatch");

	private final List<Execution> executions = new ArrayList<>();

	private int connections;

	private volatile Thread recording;

	DataSource wrap(DataSource dataSource) {
		return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = invoke(dataSource, method, args);
					if (method.getName().equals("getConnection") && isRecording()) {
						synchronized (this) {
							this.connections++;
						}
					}
					return (result instanceof Connection connection) ? wrap(connection) : result;
				});
	}

	void start() {
		synchronized (this) {
			this.executions.clear();
			this.connections = 0;
		}
		this.recording = Thread.currentThread();
	}

	void stop() {
		this.recording = null;
	}

	synchronized List<Execution> executions() {
		return List.copyOf(this.executions);
	}

	synchronized int connections() {
		return this.connections;
	}

	private boolean isRecording() {
		return this.recording == Thread.currentThread();
	}

	private Connection wrap(Connection connection) {
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					Object result = invoke(connection, method, args);
					if (result instanceof PreparedStatement statement && method.getName().equals("prepareStatement")) {
						return wrap(statement, (String) args[0]);
					}
					return result;
				});
	}

	private PreparedStatement wrap(PreparedStatement statement, String sql) {
		int[] batched = new int[1];
		InvocationHandler handler = (proxy, method, args) -> {
			String name = method.getName();
			if (name.equals("addBatch")) {
				batched[0]++;
			}
			Object result = invoke(statement, method, args);
			if (EXECUTIONS.contains(name) && isRecording()) {
				synchronized (this) {
					this.executions.add(new Execution(sql, name, batched[0]));
				}
			}
			if (name.startsWith("executeBatch") || name.equals("executeLargeBatch") || name.equals("clearBatch")) {
				batched[0] = 0;
			}
			return result;
		};
		return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { PreparedStatement.class }, handler);
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
