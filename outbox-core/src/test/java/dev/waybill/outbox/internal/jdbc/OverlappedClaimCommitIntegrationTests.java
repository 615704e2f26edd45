package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * A claim whose commit is handed over (the relay publishes while it commits): the scopes are held
 * until the commit, and a claim that never commits is no claim at all.
 */
class OverlappedClaimCommitIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	private static JdbcTemplate jdbc;

	private final List<Runnable> commits = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void createTables() {
		schema = TestSchema.withWaybillTables("claimcommit");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		jdbc = new JdbcTemplate(schema.dataSource());
	}

	@AfterAll
	static void dropTables() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", " + schema.tables().qualifiedOutboxMessage());
	}

	@AfterEach
	void commitWhatATestLeftOpen() {
		this.commits.forEach(Runnable::run);
	}

	/**
	 * A database whose default isolation is SERIALIZABLE (a DBA's {@code default_transaction_isolation}):
	 * the claim's transaction took part in its conflict detection, and its handed-over commit, run
	 * after the relay had published, failed with 40001 whenever a business transaction had read what
	 * it claimed and written what it read; every scope it had published was published again (a probe
	 * with the samples: a duplicate delivery for one message in five). The claim, whose consistency
	 * rests on row locks and leases, runs at READ COMMITTED whatever the default.
	 */
	@Test
	void aClaimCommitsOnADatabaseWhoseDefaultIsolationIsSerializable() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(TestPostgres.get().url());
		config.setUsername(TestPostgres.get().user());
		config.setPassword(TestPostgres.get().password());
		config.setMaximumPoolSize(2);
		config.setConnectionInitSql("SET default_transaction_isolation = 'serializable'");
		try (HikariDataSource serializable = new HikariDataSource(config);
				Connection business = TestPostgres.get().connect()) {
			JdbcOutboxStore serializableStore = new JdbcOutboxStore(serializable, schema.tables());
			OutboxScope scope = TestMessages.scope("orders", "m");
			serializableStore.write(scope);
			business.setAutoCommit(false);
			try (Statement statement = business.createStatement()) {
				statement.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
				// reads the scope the claim then writes
				statement.executeQuery("SELECT count(*) FROM " + schema.tables().qualifiedOutboxState()).close();
			}

			List<ClaimedScope> claimed = serializableStore.claim("relay-a", LEASE, 10, this.commits::add);
			assertThat(claimed).hasSize(1);
			try (Statement statement = business.createStatement()) {
				// writes a due scope where the claim read
				statement.execute("INSERT INTO " + schema.tables().qualifiedOutboxState() + " (id) VALUES ('"
						+ UUID.randomUUID() + "')");
			}
			business.commit();
			this.commits.forEach(Runnable::run);
			this.commits.clear();

			assertThat(jdbc.queryForObject("SELECT lease_owner FROM " + schema.tables().qualifiedOutboxState()
					+ " WHERE id = ?", String.class, scope.id())).as("the claim committed").isEqualTo("relay-a");
		}
	}

	@Test
	void aClaimReturnsBeforeItCommitsAndHoldsItsScopesFromOtherClaimersButItsLeaseCountsOnlyOnceCommitted() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 10, this.commits::add);

		assertThat(claimed).singleElement().satisfies((c) -> {
			assertThat(c.id()).isEqualTo(scope.id());
			assertThat(c.attempts()).isEqualTo(1);
		});
		assertThat(this.commits).as("the commit was handed over, not run").hasSize(1);
		assertThat(uncommittedClaims()).isEqualTo(1);
		assertThat(store.claim("relay-b", LEASE, 10)).as("another claimer skips the uncommitted claim's scope").isEmpty();
		assertThat(store.markPublished("relay-a", List.of(scope.id())))
			.as("before the commit the lease is not visible: the relay marks only after it").isZero();

		this.commits.remove(0).run();

		assertThat(uncommittedClaims()).isZero();
		assertThat(store.markPublished("relay-a", List.of(scope.id()))).isEqualTo(1);
		assertThat(status(scope.id())).isEqualTo("published");
	}

	@Test
	void aClaimThatNeverCommitsLeavesItsScopeDueAtOnceWithNoAttemptCountedAndFencesItsOwner() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		store.claim("relay-a", LEASE, 10, this.commits::add);

		// The relay's process dies (or the database drops it) before the commit ran.
		assertThat(jdbc.queryForObject("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
				+ "WHERE state LIKE 'idle in transaction%' AND query LIKE '%SKIP LOCKED%' AND query LIKE ?", Long.class,
				"%" + schema.tables().qualifiedOutboxState() + "%")).isEqualTo(1);
		this.commits.remove(0).run(); // fails, logged; the connection goes back to the pool to be discarded

		assertThat(store.claim("relay-b", LEASE, 10)).as("due at once, the lost attempt not counted")
			.singleElement()
			.satisfies((c) -> assertThat(c.attempts()).isEqualTo(1));
		assertThat(store.markPublished("relay-a", List.of(scope.id()))).as("the first claimer's writes change nothing")
			.isZero();
		assertThat(store.markPublished("relay-b", List.of(scope.id()))).isEqualTo(1);
	}

	@Test
	void aClaimThatFindsNothingHandsNoCommitOverAndKeepsNoTransactionOpen() {
		for (int i = 0; i < 20; i++) {
			assertThat(store.claim("relay-a", LEASE, 10, this.commits::add)).isEmpty();
		}

		assertThat(this.commits).isEmpty();
		assertThat(uncommittedClaims()).isZero();
	}

	@Test
	void aClaimWhoseCommitCannotBeHandedOverCommitsBeforeItReturns() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 10, (commit) -> {
			throw new java.util.concurrent.RejectedExecutionException("stopping");
		});

		assertThat(claimed).singleElement().extracting(ClaimedScope::id).isEqualTo(scope.id());
		assertThat(uncommittedClaims()).isZero();
		assertThat(store.markPublished("relay-a", List.of(scope.id()))).isEqualTo(1);
	}

	private static String status(UUID scopeId) {
		return jdbc.queryForObject("SELECT status FROM " + schema.tables().qualifiedOutboxState() + " WHERE id = ?",
				String.class, scopeId);
	}

	private static long uncommittedClaims() {
		return jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' "
				+ "AND query LIKE '%SKIP LOCKED%' AND query LIKE ?", Long.class,
				"%" + schema.tables().qualifiedOutboxState() + "%");
	}


	/**
	 * A claim that commits itself (it found nothing, or the relay is stopping and cannot take the
	 * commit) and whose commit fails is a failed claim, which the relay logs and retries as a
	 * database outage: before, the failure was swallowed, so an outage at that moment passed for an
	 * empty claim, and a claim rolled back by it was returned for publishing although no lease held.
	 */
	@Test
	void aClaimThatCommitsItselfFailsWhenItsCommitFails() {
		JdbcOutboxStore failingCommits = new JdbcOutboxStore(failingCommits(schema.dataSource()), schema.tables());
		assertThatExceptionOfType(DataAccessException.class)
			.as("a claim that found nothing")
			.isThrownBy(() -> failingCommits.claim("relay-a", LEASE, 10, this.commits::add))
			.withMessageContaining("connection lost at commit");

		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		assertThatExceptionOfType(DataAccessException.class)
			.as("a claim whose commit the stopping relay rejected")
			.isThrownBy(() -> failingCommits.claim("relay-a", LEASE, 10, (commit) -> {
				throw new RejectedExecutionException("stopping");
			}));
		assertThat(jdbc.queryForObject("SELECT attempts FROM " + schema.tables().qualifiedOutboxState() + " WHERE id = ?",
				Integer.class, scope.id())).as("rolled back: no attempt, no lease").isZero();
		assertThat(store.claim("relay-b", LEASE, 10)).extracting(ClaimedScope::id).containsExactly(scope.id());
	}

	/** Connections whose commit fails as a connection lost at that moment would. */
	private static DataSource failingCommits(DataSource dataSource) {
		return new DelegatingDataSource(dataSource) {
			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, arguments) -> {
							if (method.getName().equals("commit")) {
								connection.rollback();
								throw new SQLException("connection lost at commit", "08006");
							}
							try {
								return method.invoke(connection, arguments);
							}
							catch (java.lang.reflect.InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			}
		};
	}

}
