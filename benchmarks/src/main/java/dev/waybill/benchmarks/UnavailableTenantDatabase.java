package dev.waybill.benchmarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

import dev.waybill.outbox.test.TestPostgres;

/**
 * A tenant database of its own on the benchmarks' PostgreSQL, which a benchmark makes unavailable
 * (no connection allowed, every session ended) as a database that went away is; dropped with its
 * pool on close.
 */
final class UnavailableTenantDatabase implements AutoCloseable {

	/** How long its pool waits for a connection, as the docs advise for a store's pool. */
	static final long CONNECTION_TIMEOUT_MILLIS = 1000;

	private final TestPostgres postgres;

	private final String name;

	private final HikariDataSource pool;

	UnavailableTenantDatabase(TestPostgres postgres) throws SQLException {
		this.postgres = postgres;
		this.name = "bench_stores_down_" + UUID.randomUUID().toString().substring(0, 8);
		execute("CREATE DATABASE " + this.name);
		String url = postgres.url().replaceFirst("/[^/?]+(\\?|$)", "/" + this.name + "$1");
		this.pool = TestPostgres.at(url, postgres.user(), postgres.password(), "tenant database " + this.name)
			.pool("bench-stores-down", 2);
		this.pool.setConnectionTimeout(CONNECTION_TIMEOUT_MILLIS);
	}

	HikariDataSource pool() {
		return this.pool;
	}

	/** Lets no one connect and ends its sessions. */
	void makeUnavailable() throws SQLException {
		execute("ALTER DATABASE " + this.name + " WITH ALLOW_CONNECTIONS false");
		execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + this.name + "'");
	}

	@Override
	public void close() throws SQLException {
		this.pool.close();
		execute("DROP DATABASE IF EXISTS " + this.name + " WITH (FORCE)");
	}

	private void execute(String sql) throws SQLException {
		try (Connection connection = this.postgres.connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	@Override
	public String toString() {
		return "tenant database " + this.name;
	}

}
