package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.RetentionRows;

/**
 * 200k eligible rows purged while a writer keeps committing: new scopes, and redeliveries of old
 * inbox rows the purge is deleting (which a purge in one long transaction would block).
 */
class RetentionUnderLoadIntegrationTests {

	private static final int ROWS_PER_TABLE = 100_000;

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_load");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void writerKeepsCommittingWhile200kRowsArePurged() throws Exception {
		OutboxTables tables = schema.tables();
		schema.execute("INSERT INTO " + tables.qualifiedOutboxState() + " (id, status, published_at, message_count) "
				+ "SELECT gen_random_uuid(), 'published', now() - interval '31 days', 1 FROM generate_series(1, "
				+ ROWS_PER_TABLE + ")");
		schema.execute("INSERT INTO " + tables.qualifiedInboxState() + " (message_id, consumer_id, processed_at) "
				+ "SELECT md5('m' || n)::uuid, 'c', now() - interval '31 days' FROM generate_series(1, " + ROWS_PER_TABLE
				+ ") AS n");
		schema.execute("ANALYZE " + tables.qualifiedOutboxState());
		schema.execute("ANALYZE " + tables.qualifiedInboxState());
		AtomicBoolean stop = new AtomicBoolean();
		List<Long> commits = new ArrayList<>();
		CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(tables, stop, commits));
		RetentionWorker worker = new RetentionWorker(schema.dataSource(), tables, RetentionSettings.defaults(),
				RetentionListener.NONE);
		long started = System.nanoTime();
		RetentionResult result = worker.runOnce();
		long finished = System.nanoTime();
		stop.set(true);
		writer.get(60, TimeUnit.SECONDS);

		assertThat(result.outboxStates()).isEqualTo(ROWS_PER_TABLE);
		assertThat(result.batches()).isGreaterThanOrEqualTo(ROWS_PER_TABLE / RetentionSettings.DEFAULT_BATCH_SIZE);
		RetentionRows rows = new RetentionRows(schema);
		assertThat(rows.count(tables.qualifiedInboxState() + " WHERE processed_at IS NOT NULL")).isZero();
		assertThat(rows.count(tables.qualifiedOutboxState() + " WHERE status = 'pending'")).isEqualTo(commits.size());
		// The writer committed throughout the purge: no pause longer than a quarter of the purge.
		// Measured against the purge itself, not the clock: one long transaction would stall the
		// writer on its first redelivery of a row being deleted until the very end.
		List<Long> during = new ArrayList<>();
		during.add(started);
		commits.stream().filter((at) -> at > started && at < finished).forEach(during::add);
		during.add(finished);
		long longestPause = 0;
		for (int i = 1; i < during.size(); i++) {
			longestPause = Math.max(longestPause, during.get(i) - during.get(i - 1));
		}
		assertThat(during.size() - 2).as("writer commits during the purge").isGreaterThanOrEqualTo(10);
		assertThat(longestPause).as("longest pause between writer commits (ns) of a %d ns purge", finished - started)
			.isLessThan((finished - started) / 4);
	}

	private static void write(OutboxTables tables, AtomicBoolean stop, List<Long> commits) {
		try (Connection connection = TestPostgres.get().connect();
				PreparedStatement scope = connection.prepareStatement("INSERT INTO " + tables.qualifiedOutboxState()
						+ " (id) VALUES (?)");
				PreparedStatement redelivery = connection.prepareStatement("INSERT INTO " + tables.qualifiedInboxState()
						+ " AS inbox (message_id, consumer_id) VALUES (md5('m' || ?)::uuid, 'c') ON CONFLICT "
						+ "(message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1")) {
			connection.setAutoCommit(false);
			while (!stop.get()) {
				scope.setObject(1, UUID.randomUUID());
				scope.executeUpdate();
				redelivery.setInt(1, ThreadLocalRandom.current().nextInt(1, ROWS_PER_TABLE + 1));
				redelivery.executeUpdate();
				connection.commit();
				commits.add(System.nanoTime());
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
