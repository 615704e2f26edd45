package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.test.TestSchema;

/**
 * Every purge statement can be served by the changelog's indexes: with sequential scans priced out
 * ({@code enable_seqscan = off}), the planner still finds a plan without one, and the plan walks
 * the retention index the statement was written for. Without those indexes a purge would scan the
 * whole table on every batch, and slow down as the kept rows grow.
 */
class RetentionQueryPlanTests {

	private static TestSchema schema;

	private static RetentionSql sql;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_plan");
		sql = new RetentionSql(schema.tables());
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void completedScopesWalkThePublishedIndex() throws SQLException {
		// the replay job table, a few rows, is read once per statement whatever its size
		assertThat(plan(sql.completedScopes)).doesNotContainPattern("Seq Scan on (?!" + schema.tables().outboxState() + "_replay )")
			.contains(schema.tables().outboxState() + "_published_idx");
	}

	@Test
	void expiredAndCancelledScopesWalkTheFinishedIndex() throws SQLException {
		assertThat(plan(sql.finishedScopes)).doesNotContain("Seq Scan")
			.contains(schema.tables().outboxState() + "_finished_idx");
	}

	@Test
	void faultedScopesWalkTheFaultedAndTheConsumerOutboxIndexes() throws SQLException {
		assertThat(plan(sql.faultedScopes)).doesNotContain("Seq Scan")
			.contains(schema.tables().inboxState() + "_faulted_idx")
			.contains(schema.tables().outboxState() + "_inbound_idx");
	}

	@Test
	void abandonedScopesWalkTheRetryingAndTheConsumerOutboxIndexes() throws SQLException {
		assertThat(plan(sql.abandonedScopes)).doesNotContain("Seq Scan")
			.contains(schema.tables().inboxState() + "_retrying_idx")
			.contains(schema.tables().outboxState() + "_inbound_idx");
	}

	@Test
	void abandonedInboxRowsWalkTheRetryingIndex() throws SQLException {
		assertThat(plan(sql.abandonedInbox)).doesNotContain("Seq Scan")
			.contains(schema.tables().inboxState() + "_retrying_idx");
	}

	@Test
	void deadScopesWalkTheDeadIndex() throws SQLException {
		assertThat(plan(sql.deadScopes)).doesNotContain("Seq Scan")
			.contains(schema.tables().outboxState() + "_dead_idx");
	}

	@Test
	void pendingScopesWalkTheRelaysReadyAndOrderingIndexes() throws SQLException {
		assertThat(plan(sql.pendingScopes)).doesNotContain("Seq Scan")
			.contains(schema.tables().outboxState() + "_ready_idx")
			.contains(schema.tables().outboxState() + "_ordering_idx");
	}

	@Test
	void completedInboxRowsWalkTheProcessedIndex() throws SQLException {
		assertThat(plan(sql.completedInbox)).doesNotContain("Seq Scan")
			.contains(schema.tables().inboxState() + "_processed_idx");
	}

	@Test
	void faultedInboxRowsWalkTheFaultedIndex() throws SQLException {
		assertThat(plan(sql.faultedInbox)).doesNotContain("Seq Scan")
			.contains(schema.tables().inboxState() + "_faulted_idx");
	}

	private static String plan(String statement) throws SQLException {
		try (Connection connection = schema.dataSource().getConnection()) {
			connection.setAutoCommit(false);
			try (Statement settings = connection.createStatement()) {
				settings.execute("SET LOCAL enable_seqscan = off");
			}
			try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement)) {
				// Ages in milliseconds, then the batch limit last.
				int parameters = explain.getParameterMetaData().getParameterCount();
				for (int i = 1; i < parameters; i++) {
					explain.setLong(i, 1_000);
				}
				explain.setLong(parameters, 100);
				StringBuilder plan = new StringBuilder();
				try (ResultSet lines = explain.executeQuery()) {
					while (lines.next()) {
						plan.append(lines.getString(1)).append('\n');
					}
				}
				return plan.toString();
			}
			finally {
				connection.rollback();
			}
		}
	}

}
