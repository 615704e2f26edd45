package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.ScopeStatus;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

class OutboxSchemaIntegrationTests {

	private TestSchema schema;

	private JdbcTemplate jdbc;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("schema");
		this.jdbc = new JdbcTemplate(this.schema.dataSource());
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void createsTheThreeTablesWithTheColumnsTheDesignNames() throws Exception {
		new OutboxSchemaInitializer(this.schema.dataSource(), this.schema.tables()).migrate();

		assertThat(columns("outbox_state")).containsExactly("id", "created_at", "status", "published_at", "attempts",
				"next_attempt_at", "last_error", "lease_owner", "lease_until", "inbound_message_id", "consumer_id",
				"message_count", "completed_at", "ordering_key", "ordering_seq", "ordering_held");
		assertThat(columns("outbox_message")).containsExactly("sequence_number", "outbox_id", "message_id",
				"destination", "routing_key", "message_type", "content_type", "headers", "body", "correlation_id",
				"conversation_id", "source_host", "created_at", "not_before", "expires_at");
		assertThat(columns("inbox_state")).containsExactly("message_id", "consumer_id", "received_at",
				"receive_count", "processed_at", "attempts", "last_error", "faulted_at");
		assertThat(indexes()).doesNotContain("outbox_state_due_idx", "outbox_message_message_id_idx");
		assertThat(indexes()).contains("outbox_state_published_idx", "outbox_state_dead_idx",
				"outbox_state_inbound_idx", "outbox_message_outbox_idx",
				"inbox_state_pkey", "inbox_state_processed_idx", "inbox_state_faulted_idx", "outbox_state_finished_idx",
				"outbox_state_ready_idx", "outbox_state_ordering_idx");
	}

	@Test
	void deletingScopesDeletesTheirMessagesWithoutAForeignKeyCheckedPerMessage() throws Exception {
		OutboxTables tables = this.schema.tables();
		new OutboxSchemaInitializer(this.schema.dataSource(), tables).migrate();
		JdbcOutboxStore store = new JdbcOutboxStore(this.schema.dataSource(), tables);
		store.write(TestMessages.scope("orders", "a", "b"));
		store.write(TestMessages.scope("orders", "c"));
		store.write(TestMessages.scope("billing", "d"));

		int deleted = this.jdbc.update("DELETE FROM " + tables.qualifiedOutboxState() + " s WHERE EXISTS (SELECT 1 FROM "
				+ tables.qualifiedOutboxMessage() + " m WHERE m.outbox_id = s.id AND m.destination = 'orders')");

		assertThat(deleted).isEqualTo(2);
		assertThat(this.jdbc.queryForList("SELECT destination FROM " + tables.qualifiedOutboxMessage(), String.class))
			.containsExactly("billing");
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = ?::regclass",
				Integer.class, tables.qualifiedOutboxMessage())).isZero();
	}

	@Test
	void appliesTwiceWithoutErrorOrChange() throws Exception {
		OutboxSchemaInitializer initializer = new OutboxSchemaInitializer(this.schema.dataSource(), this.schema.tables());
		initializer.migrate();
		int changeSets = changeSetsApplied();

		initializer.migrate();
		new OutboxSchemaInitializer(this.schema.dataSource(), this.schema.tables()).migrate();

		assertThat(changeSets).isEqualTo(changeSetsInTheChangelog());
		assertThat(changeSetsApplied()).isEqualTo(changeSets);
	}

	@Test
	void instancesStartingTogetherOnAnEmptySchemaAllApplyTheChangelog() throws Exception {
		// Several instances of a service starting at once on a fresh database: Liquibase's own lock
		// table does not cover the creation of its history table, so without a lock of Waybill's
		// one instance failed start-up with 'relation "outbox_state_changelog" already exists'.
		instancesStartTogether(this.schema.dataSource(), 5);
	}

	@Test
	void throughATransactionModePoolerInstancesStartingTogetherAllApplyTheChangelogAndLeaveNoLockBehind()
			throws Exception {
		// A session lock taken through the pooler stayed with the server session that ran it, and
		// the next start-up given another session waited on it for ever. Fewer server connections
		// than instances: a waiter must not keep one while the holder applies the changelog.
		try (TestPgBouncer pooler = TestPgBouncer.start(3); HikariDataSource pooled = pooler.pool("schema-pooled", 12)) {
			instancesStartTogether(pooled, 3);
			new OutboxSchemaInitializer(pooled, this.schema.tables()).migrate();
			new OutboxSchemaInitializer(pooled, this.schema.tables()).migrate();
		}
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 "
				+ "AND ((classid::int8 << 32) | objid::int8) = hashtextextended(?, 0)", Integer.class,
				"waybill-liquibase:" + this.schema.tables().schema() + "." + this.schema.tables().changelogTable()))
			.as("the migration's lock left held").isZero();
	}

	private void instancesStartTogether(DataSource dataSource, int rounds) throws Exception {
		for (int round = 0; round < rounds; round++) {
			OutboxTables tables = OutboxTables.inSchema(this.schema.name() + "_race" + round);
			int instances = 6;
			ExecutorService pool = Executors.newFixedThreadPool(instances);
			try {
				CyclicBarrier start = new CyclicBarrier(instances);
				List<Future<?>> runs = new ArrayList<>();
				for (int i = 0; i < instances; i++) {
					runs.add(pool.submit(() -> {
						start.await();
						new OutboxSchemaInitializer(dataSource, tables).migrate();
						return null;
					}));
				}
				for (Future<?> run : runs) {
					run.get(); // throws ExecutionException if any instance failed
				}
				assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + tables.qualifiedOutboxState(), Long.class))
					.isZero();
			}
			finally {
				pool.shutdownNow();
				this.jdbc.execute("DROP SCHEMA IF EXISTS " + this.schema.name() + "_race" + round + " CASCADE");
			}
		}
	}

	@Test
	void createsAMissingSchema() throws Exception {
		OutboxTables elsewhere = OutboxTables.inSchema(this.schema.name() + "_new");
		try {
			new OutboxSchemaInitializer(this.schema.dataSource(), elsewhere).migrate();
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + elsewhere.qualifiedOutboxState(), Long.class))
				.isZero();
		}
		finally {
			this.schema.execute("DROP SCHEMA " + elsewhere.schema() + " CASCADE");
		}
	}

	@Test
	void aRoleThatMayOnlyReadAndWriteTheTablesStartsOnAnAppliedSchema() throws Exception {
		// A DBA owns the schema: the service's role may use it and read and write its tables, but
		// create nothing. With everything applied there is nothing to create; the initializer's own
		// CREATE SCHEMA IF NOT EXISTS failed anyway ('permission denied for database'), since
		// PostgreSQL checks the CREATE privilege before it looks for the schema, so every start failed.
		new OutboxSchemaInitializer(this.schema.dataSource(), this.schema.tables()).migrate();
		String role = this.schema.name() + "_app";
		String password = TestPostgres.get().password();
		this.schema.execute("CREATE ROLE " + role + " LOGIN"
				+ (password == null || password.isEmpty() ? "" : " PASSWORD '" + password.replace("'", "''") + "'"));
		try {
			this.schema.execute("GRANT USAGE ON SCHEMA " + this.schema.name() + " TO " + role);
			this.schema.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + this.schema.name()
					+ " TO " + role);
			this.schema.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + this.schema.name() + " TO " + role);
			int changeSets = changeSetsApplied();
			try (com.zaxxer.hikari.HikariDataSource asRole = rolePool(role)) {
				new OutboxSchemaInitializer(asRole, this.schema.tables()).migrate();
				new JdbcOutboxStore(asRole, this.schema.tables()).write(TestMessages.scope("orders", "m"));
			}
			assertThat(changeSetsApplied()).isEqualTo(changeSets);
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage(),
					Long.class)).isOne();
		}
		finally {
			this.schema.execute("DROP OWNED BY " + role);
			this.schema.execute("DROP ROLE " + role);
		}
	}

	private static com.zaxxer.hikari.HikariDataSource rolePool(String role) {
		com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
		config.setJdbcUrl(TestPostgres.get().url());
		config.setUsername(role);
		config.setPassword(TestPostgres.get().password());
		config.setMaximumPoolSize(2);
		return new com.zaxxer.hikari.HikariDataSource(config);
	}

	@Test
	void twoSetsOfTablesWithOtherNamesLiveSideBySideInOneSchema() throws Exception {
		OutboxTables first = this.schema.tables();
		OutboxTables second = new OutboxTables(this.schema.name(), "billing_outbox", "billing_message", "billing_inbox");
		new OutboxSchemaInitializer(this.schema.dataSource(), first).migrate();
		new OutboxSchemaInitializer(this.schema.dataSource(), second).migrate();

		new JdbcOutboxStore(this.schema.dataSource(), second).write(TestMessages.scope("billing", "m"));

		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + second.qualifiedOutboxMessage(), Long.class)).isOne();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + first.qualifiedOutboxMessage(), Long.class)).isZero();
		assertThat(indexes()).contains("billing_outbox_ready_idx", "outbox_state_ready_idx");
	}

	@Test
	void theClaimUsesThePartialReadyIndexNotTheTable() throws Exception {
		OutboxTables tables = this.schema.tables();
		new OutboxSchemaInitializer(this.schema.dataSource(), tables).migrate();
		String claim = new OutboxSql(tables).claim.replace("?::text[]", "'{}'::text[]")
			.replace("?::int[]", "'{}'::int[]")
			.replace("?::boolean[]", "'{}'::boolean[]")
			.replace("?::uuid[]", "'{}'::uuid[]")
			.replace("?", "1");

		List<String> plan = this.jdbc.execute((Connection connection) -> {
			try (Statement statement = connection.createStatement()) {
				// With tiny tables the planner would scan; forbid that to see which index it can use.
				statement.execute("SET enable_seqscan = off");
				return new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(connection, true))
					.queryForList("EXPLAIN " + claim, String.class);
			}
		});

		// The ready index: the due index without the scopes held back behind their ordering key.
		assertThat(String.join("\n", plan)).contains("outbox_state_ready_idx").doesNotContain("Seq Scan on outbox_state");
	}

	@Test
	void everyReaderOfPendingScopesUsesTheReadyAndOrderingIndexesNotTheTable() throws Exception {
		OutboxTables tables = this.schema.tables();
		new OutboxSchemaInitializer(this.schema.dataSource(), tables).migrate();
		JdbcOutboxBrowser browser = new JdbcOutboxBrowser(this.schema.dataSource(), tables);
		List<String> statements = List.of(new OutboxSql(tables).stats, browser.page.get(ScopeStatus.PENDING),
				browser.count.get(ScopeStatus.PENDING), browser.pageOfDestination.get(ScopeStatus.PENDING));

		for (String statement : statements) {
			// There is no index of all pending scopes (it would cost every write an entry): the
			// pending condition must be read through the ready index OR the ordering index.
			assertThat(String.join("\n", plan(statement.replace("?", "'1'")))).as(statement).contains("outbox_state_ready_idx")
				.contains("outbox_state_ordering_idx").doesNotContain("Seq Scan on outbox_state");
		}
	}

	@Test
	void aHeldScopeAlwaysHasAnOrderingKeySoTheOrderingIndexHoldsEveryHeldScope() throws Exception {
		OutboxTables tables = this.schema.tables();
		new OutboxSchemaInitializer(this.schema.dataSource(), tables).migrate();
		new JdbcOutboxStore(this.schema.dataSource(), tables).write(TestMessages.scope("orders", "m"));

		assertThatExceptionOfType(org.springframework.dao.DataIntegrityViolationException.class)
			.isThrownBy(() -> this.jdbc.update("UPDATE " + tables.qualifiedOutboxState() + " SET ordering_held = true"))
			.withMessageContaining("held_keyed_check");
	}

	private List<String> plan(String statement) {
		return this.jdbc.execute((Connection connection) -> {
			try (Statement settings = connection.createStatement()) {
				// With tiny tables the planner would scan; forbid that to see which index it can use.
				settings.execute("SET enable_seqscan = off");
				return new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(connection, true))
					.queryForList("EXPLAIN " + statement, String.class);
			}
			finally {
				try (Statement settings = connection.createStatement()) {
					settings.execute("RESET enable_seqscan");
				}
			}
		});
	}

	@Test
	void aCommittedWriteNotifiesNothingItself() throws Exception {
		// A NOTIFY in the business transaction would serialize its commit with every other
		// notifying commit; the notification is sent after commit instead (PostgresCommitNotifier).
		OutboxTables tables = this.schema.tables();
		new OutboxSchemaInitializer(this.schema.dataSource(), tables).migrate();
		try (Connection listener = TestPostgres.get().connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + tables.notifyChannel());
			}
			try (Connection writer = this.schema.dataSource().getConnection()) {
				writer.setAutoCommit(false);
				new JdbcOutboxStore(new org.springframework.jdbc.datasource.SingleConnectionDataSource(writer, true), tables)
					.write(TestMessages.scope("orders", "a", "b", "c"));
				writer.commit();
			}
			assertThat(poll(listener, 500)).isEmpty();
		}
	}

	private static List<PGNotification> poll(Connection listener, int millis) throws Exception {
		PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(millis);
		return notifications == null ? List.of() : List.of(notifications);
	}

	private List<String> columns(String table) {
		return this.jdbc.queryForList("SELECT column_name FROM information_schema.columns WHERE table_schema = ? "
				+ "AND table_name = ? ORDER BY ordinal_position", String.class, this.schema.name(), table);
	}

	private List<String> indexes() {
		return this.jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE schemaname = ?", String.class,
				this.schema.name());
	}

	private static int changeSetsInTheChangelog() throws Exception {
		try (java.io.InputStream in = OutboxSchemaIntegrationTests.class
			.getResourceAsStream("/db/changelog/waybill/waybill-changelog.yaml")) {
			String changelog = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
			return changelog.split("\n  - changeSet:", -1).length - 1;
		}
	}

	private int changeSetsApplied() {
		return this.jdbc.queryForObject("SELECT count(*) FROM " + this.schema.name() + "." + this.schema.tables().changelogTable(), Integer.class);
	}

}
