package dev.waybill.outbox.test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.EarlierChangelog;
import dev.waybill.outbox.internal.jdbc.OutboxSchemaInitializer;

/**
 * A schema of its own for one test class, in {@link TestPostgres}, with a small pool. Closing it
 * drops the schema and everything in it, so test classes run in any order and repeat cleanly.
 */
public final class TestSchema implements AutoCloseable {

	private final String name;

	private final HikariDataSource dataSource;

	private TestSchema(String name, HikariDataSource dataSource) {
		this.name = name;
		this.dataSource = dataSource;
	}

	/**
	 * Creates an empty schema with a unique name.
	 * @param prefix a readable prefix, e.g. the test class's short name
	 * @return the schema
	 */
	public static TestSchema create(String prefix) {
		return create(TestPostgres.get(), prefix);
	}

	/**
	 * Creates an empty schema with a unique name in a given database.
	 * @param postgres the database
	 * @param prefix a readable prefix
	 * @return the schema
	 */
	public static TestSchema create(TestPostgres postgres, String prefix) {
		String name = (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_") + "_"
				+ UUID.randomUUID().toString().substring(0, 8));
		HikariDataSource dataSource = postgres.pool("test-" + name, 12);
		TestSchema schema = new TestSchema(name, dataSource);
		schema.execute("CREATE SCHEMA " + name);
		return schema;
	}

	/**
	 * Creates a schema with Waybill's tables in it, applied by the Liquibase changelog.
	 * @param prefix a readable prefix
	 * @return the schema
	 */
	public static TestSchema withWaybillTables(String prefix) {
		return withWaybillTables(TestPostgres.get(), prefix);
	}

	/**
	 * Creates a schema with Waybill's tables in it, applied by the Liquibase changelog, in a given
	 * database.
	 * @param postgres the database
	 * @param prefix a readable prefix
	 * @return the schema
	 */
	public static TestSchema withWaybillTables(TestPostgres postgres, String prefix) {
		TestSchema schema = create(postgres, prefix);
		try {
			new OutboxSchemaInitializer(schema.dataSource(), schema.tables()).migrate();
		}
		catch (Exception ex) {
			schema.close();
			throw new IllegalStateException("Could not create Waybill's tables in " + schema.name(), ex);
		}
		return schema;
	}

	/**
	 * Creates a schema with Waybill's tables as an installation of an earlier version has them: the
	 * changelog's changesets before {@code firstNewChangeSet}. {@link #migrate()} then upgrades it.
	 * @param prefix a readable prefix
	 * @param firstNewChangeSet the id of the first changeset the earlier version did not have
	 * @return the schema
	 */
	public static TestSchema withWaybillTablesBefore(String prefix, String firstNewChangeSet) {
		TestSchema schema = create(TestPostgres.get(), prefix);
		try {
			EarlierChangelog.applyBefore(schema, firstNewChangeSet);
		}
		catch (Exception ex) {
			schema.close();
			throw new IllegalStateException("Could not create the earlier tables in " + schema.name(), ex);
		}
		return schema;
	}

	/**
	 * Applies Waybill's whole changelog to this schema, as a starting instance does.
	 * @throws Exception when the changelog cannot be applied
	 */
	public void migrate() throws Exception {
		new OutboxSchemaInitializer(this.dataSource, tables()).migrate();
	}

	public String name() {
		return this.name;
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Returns Waybill's default tables in this schema.
	 * @return the tables
	 */
	public OutboxTables tables() {
		return OutboxTables.inSchema(this.name);
	}

	/**
	 * Runs one SQL statement in its own transaction.
	 * @param sql the statement
	 */
	public void execute(String sql) {
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Failed: " + sql, ex);
		}
	}

	@Override
	public void close() {
		try {
			execute("DROP SCHEMA IF EXISTS " + this.name + " CASCADE");
		}
		finally {
			this.dataSource.close();
		}
	}

}
