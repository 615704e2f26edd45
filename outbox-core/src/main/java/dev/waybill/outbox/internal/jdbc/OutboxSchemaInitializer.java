package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

import liquibase.UpdateSummaryOutputEnum;
import liquibase.integration.spring.SpringLiquibase;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.waybill.kernel.AdvisoryTransactionLock;
import dev.waybill.kernel.OutboxTables;

/**
 * Creates or updates Waybill's tables with its Liquibase changelog when the application starts.
 * Liquibase's history and lock tables live in Waybill's schema, apart from the application's
 * own, and are named after the outbox state table ({@code outbox_state_changelog} and
 * {@code outbox_state_changelog_lock} by default), so several table sets can share a schema.
 * <p>
 * This is deliberately not a {@link SpringLiquibase} bean: Spring Boot configures the
 * application's own Liquibase only when no such bean exists.
 *
 * @since 0.1
 */
public final class OutboxSchemaInitializer implements InitializingBean {

	/** The changelog, for including in an application's own master changelog. */
	public static final String CHANGELOG = "classpath:db/changelog/waybill/waybill-changelog.yaml";

	private final DataSource dataSource;

	private final OutboxTables tables;

	private final ClassLoader changelogLoader;

	/**
	 * Creates an initializer.
	 * @param dataSource the database
	 * @param tables the tables to create
	 */
	public OutboxSchemaInitializer(DataSource dataSource, OutboxTables tables) {
		this(dataSource, tables, OutboxSchemaInitializer.class.getClassLoader());
	}

	/**
	 * Creates an initializer that reads {@link #CHANGELOG} through the given class loader: an
	 * upgrade test applies an earlier version of the changelog so.
	 */
	OutboxSchemaInitializer(DataSource dataSource, OutboxTables tables, ClassLoader changelogLoader) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
		this.changelogLoader = changelogLoader;
	}

	@Override
	public void afterPropertiesSet() throws Exception {
		migrate();
	}

	/**
	 * Applies the changelog: creates what is missing, changes nothing that is up to date.
	 * @throws Exception when the changelog cannot be applied
	 */
	public void migrate() throws Exception {
		// Instances of a service that start together on a fresh database would race: Liquibase's
		// lock table does not cover creating the schema or its history table, and the losers fail
		// start-up ('relation "outbox_state_changelog" already exists'). An advisory lock makes them
		// apply the changelog one at a time; it is held by a transaction of a second connection, not
		// by a session, so that it also holds through a transaction-mode pooler.
		Connection connected;
		try {
			connected = this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new SchemaDatabaseUnreachableException(this.tables.schema(), ex);
		}
		try (Connection connection = connected; AutoCloseable lock = lock(connection)) {
			// Liquibase keeps its history in this schema, so the schema must exist before it starts.
			// Only created when missing: PostgreSQL checks the CREATE privilege on the database
			// before it looks for the schema, so CREATE SCHEMA IF NOT EXISTS fails for a role that
			// may not create schemas (a DBA's schema) although there is nothing to create.
			if (!schemaExists(connection)) {
				try (Statement statement = connection.createStatement()) {
					statement.execute("CREATE SCHEMA IF NOT EXISTS " + this.tables.schema());
				}
				catch (SQLException ex) {
					throw refused(connection, "create the schema, which does not exist,", ex);
				}
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
			try {
				update(new SingleConnectionDataSource(connection, true));
			}
			catch (Exception ex) {
				throw refused(connection, "apply its changelog", ex);
			}
			finally {
				if (!connection.isClosed() && !connection.getAutoCommit()) {
					connection.rollback();
				}
			}
		}
	}

	private AutoCloseable lock(Connection connection) throws SQLException, InterruptedException {
		long key = lockKey(connection);
		if (!connection.getAutoCommit()) {
			connection.commit();
		}
		if (singleConnectionPool(this.dataSource)) {
			// No second connection to hold the lock: a session lock on this one, as a pool of one
			// connection is not shared through a transaction-mode pooler's sessions either.
			sessionLock(connection, "SELECT pg_advisory_lock(?)", key);
			return () -> {
				if (!connection.isClosed()) {
					if (!connection.getAutoCommit()) {
						connection.rollback();
					}
					sessionLock(connection, "SELECT pg_advisory_unlock(?)", key);
				}
			};
		}
		try {
			return AdvisoryTransactionLock.acquire(this.dataSource, key);
		}
		catch (SQLException ex) {
			throw new SchemaDatabaseUnreachableException(this.tables.schema(), ex);
		}
	}

	private static void sessionLock(Connection connection, String sql, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setLong(1, key);
			statement.execute();
		}
		if (!connection.getAutoCommit()) {
			connection.commit();
		}
	}

	/** Whether the DataSource is a pool (HikariCP's, or one with the same getter) of one connection. */
	private static boolean singleConnectionPool(DataSource dataSource) {
		try {
			Object size = dataSource.getClass().getMethod("getMaximumPoolSize").invoke(dataSource);
			return (size instanceof Integer max) && max == 1;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Returns a {@link SchemaPrivilegeException} saying what was refused and what to do when
	 * {@code failure} is a refused privilege (SQLState 42501), else {@code failure} itself.
	 */
	private Exception refused(Connection connection, String what, Exception failure) {
		SQLException refusal = SchemaPrivilegeException.refusal(failure);
		if (refusal == null) {
			return failure;
		}
		String role = null;
		try {
			if (!connection.getAutoCommit()) {
				connection.rollback();
			}
			try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery("SELECT current_user")) {
				role = result.next() ? result.getString(1) : null;
			}
		}
		catch (SQLException ex) {
			// the role is only named when the connection still answers
		}
		return new SchemaPrivilegeException(this.tables.schema(), role, what, refusal, failure);
	}

	private boolean schemaExists(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?)")) {
			statement.setString(1, this.tables.schema());
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getBoolean(1);
			}
		}
	}

	private long lockKey(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT hashtextextended(?, 0)")) {
			statement.setString(1, "waybill-liquibase:" + this.tables.schema() + "." + this.tables.changelogTable());
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getLong(1);
			}
		}
	}

	private void update(DataSource dataSource) throws Exception {
		SpringLiquibase liquibase = new SpringLiquibase();
		liquibase.setDataSource(dataSource);
		liquibase.setResourceLoader(new DefaultResourceLoader(this.changelogLoader));
		liquibase.setChangeLog(CHANGELOG);
		liquibase.setChangeLogParameters(this.tables.changelogParameters());
		liquibase.setDefaultSchema(this.tables.schema());
		liquibase.setLiquibaseSchema(this.tables.schema());
		liquibase.setDatabaseChangeLogTable(this.tables.changelogTable());
		liquibase.setDatabaseChangeLogLockTable(this.tables.changelogLockTable());
		liquibase.setAnalyticsEnabled(false);
		liquibase.setShowSummaryOutput(UpdateSummaryOutputEnum.LOG);
		liquibase.afterPropertiesSet();
	}

}
