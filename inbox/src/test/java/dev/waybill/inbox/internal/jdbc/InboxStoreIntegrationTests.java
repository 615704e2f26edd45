package dev.waybill.inbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.test.TestSchema;

class InboxStoreIntegrationTests {

	private static TestSchema schema;

	private static InboxStore store;

	private static TransactionTemplate transaction;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_store");
		store = new InboxStore(schema.dataSource(), schema.tables());
		transaction = new TransactionTemplate(new DataSourceTransactionManager(schema.dataSource()));
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void everyOperationNeedsATransactionOnItsDataSource() {
		UUID id = UUID.randomUUID();
		assertThatIllegalStateException().isThrownBy(() -> store.receive(id, "orders"))
			.withMessageContaining("must be written in a transaction that manages its DataSource");
		assertThatIllegalStateException().isThrownBy(() -> store.recordFailure(id, "orders", "boom", 3))
			.withMessageContaining("must be written in a transaction that manages its DataSource");
	}

	@Test
	void receiveInsertsOnceThenCountsAndReportsProcessing() {
		UUID id = UUID.randomUUID();
		assertThat(receive(id, "orders"))
			.isEqualTo(new InboxStore.Receipt(false, false, 0));
		transaction.executeWithoutResult((status) -> {
			assertThat(store.receive(id, "orders")).isEqualTo(new InboxStore.Receipt(false, false, 0));
			store.markProcessed(id, "orders");
		});
		assertThat(receive(id, "orders")).isEqualTo(new InboxStore.Receipt(true, false, 0));
		assertThat(receive(id, "billing"))
			.as("another consumer has a row of its own")
			.isEqualTo(new InboxStore.Receipt(false, false, 0));
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + id + "' AND consumer_id = 'orders'"))
			.isEqualTo(3);
	}

	@Test
	void recordFailureCountsAttemptsUntilTheFaultLimit() {
		UUID id = UUID.randomUUID();
		assertThat(recordFailure(id, "orders", "first", 2))
			.isEqualTo(new InboxStore.Failure(true, false, false, 1));
		assertThat(recordFailure(id, "orders", "x".repeat(5000), 2))
			.isEqualTo(new InboxStore.Failure(true, false, true, 2));
		assertThat(receive(id, "orders")).isEqualTo(new InboxStore.Receipt(false, true, 2));
		assertThat(value("SELECT length(last_error) FROM %s WHERE message_id = '" + id + "'"))
			.isEqualTo(InboxStore.MAX_ERROR_LENGTH);
	}

	@Test
	void recordFailureLeavesAProcessedRowAlone() {
		UUID id = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(id, "orders");
			store.markProcessed(id, "orders");
		});
		assertThat(recordFailure(id, "orders", "late failure", 1)).isEqualTo(new InboxStore.Failure(false, true, false, 0));
		assertThat(value("SELECT attempts FROM %s WHERE message_id = '" + id + "'")).isZero();
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + id + "' AND faulted_at IS NULL "
				+ "AND last_error IS NULL")).isEqualTo(1);
	}

	@Test
	void aFaultedRowIsFinalUntilItsFaultIsCleared() {
		UUID id = UUID.randomUUID();
		assertThat(recordFailure(id, "orders", "card declined", 1)).isEqualTo(new InboxStore.Failure(true, false, true, 1));

		assertThat(receive(id, "orders")).isEqualTo(new InboxStore.Receipt(false, true, 1));
		assertThat(recordFailure(id, "orders", "declined again", 1))
			.as("a second fault is not recorded")
			.isEqualTo(new InboxStore.Failure(false, false, true, 1));
		assertThatIllegalStateException().isThrownBy(() -> transaction.executeWithoutResult((status) -> {
			store.receive(id, "orders");
			store.markProcessed(id, "orders");
		})).withMessageContaining("processed or faulted already");
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + id + "' AND processed_at IS NULL "
				+ "AND faulted_at IS NOT NULL AND attempts = 1 AND last_error = 'card declined'")).isEqualTo(1);

		assertThat(store.clearFault(id, "billing")).as("another consumer's row").isFalse();
		assertThat(store.clearFault(id, "orders")).isTrue();
		assertThat(store.clearFault(id, "orders")).as("cleared already").isFalse();
		transaction.executeWithoutResult((status) -> {
			assertThat(store.receive(id, "orders")).isEqualTo(new InboxStore.Receipt(false, false, 0));
			store.markProcessed(id, "orders");
		});
		assertThat(store.clearFault(id, "orders")).as("processed").isFalse();
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + id + "' AND processed_at IS NOT NULL "
				+ "AND faulted_at IS NULL AND last_error = 'card declined'")).isEqualTo(1);
	}

	@Test
	void markProcessedNeedsAReceivedUnprocessedRow() {
		UUID id = UUID.randomUUID();
		assertThatIllegalStateException()
			.isThrownBy(() -> transaction.executeWithoutResult((status) -> store.markProcessed(id, "orders")))
			.withMessageContaining("is missing, processed or faulted already");
	}

	@Test
	void receiveOfManyRowsRecordsAndMarksTheNewAndUnprocessedAndLeavesTheOthers() {
		UUID fresh = UUID.randomUUID();
		UUID seen = UUID.randomUUID();
		UUID done = UUID.randomUUID();
		UUID given = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(seen, "orders");
			store.recordFailure(seen, "orders", "first try failed", 5);
			store.receive(done, "orders");
			store.markProcessed(done, "orders");
			store.recordFailure(given, "orders", "given up", 1);
		});
		Map<InboxStore.Key, InboxStore.BatchReceipt> marked = transaction.execute((status) -> store.receive(List.of(
				new InboxStore.Received(new InboxStore.Key(fresh, "orders"), 3),
				new InboxStore.Received(new InboxStore.Key(seen, "orders"), 1),
				new InboxStore.Received(new InboxStore.Key(done, "orders"), 2),
				new InboxStore.Received(new InboxStore.Key(given, "orders"), 1))));
		assertThat(marked).containsOnly(entry(new InboxStore.Key(fresh, "orders"), new InboxStore.BatchReceipt(0)),
				entry(new InboxStore.Key(seen, "orders"), new InboxStore.BatchReceipt(1)));
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + fresh + "'")).isEqualTo(3);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + seen + "'")).isEqualTo(3);
		assertThat(value("SELECT count(*) FROM %s WHERE processed_at IS NOT NULL AND message_id IN ('" + fresh + "', '"
				+ seen + "')")).isEqualTo(2);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + done + "'")).as("left as it was")
			.isEqualTo(1);
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + given + "' AND processed_at IS NULL"))
			.as("a faulted message stays unprocessed").isEqualTo(1);
	}

	@Test
	void countReceiptsCountsRowsProcessedOrFaultedBeforeAndSaysWhich() {
		UUID done = UUID.randomUUID();
		UUID given = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(done, "orders");
			store.markProcessed(done, "orders");
			store.recordFailure(given, "orders", "given up", 1);
		});
		Map<InboxStore.Key, InboxStore.Receipt> receipts = transaction.execute((status) -> store.countReceipts(
				List.of(new InboxStore.Received(new InboxStore.Key(done, "orders"), 2),
						new InboxStore.Received(new InboxStore.Key(given, "orders"), 1))));
		assertThat(receipts).containsOnly(entry(new InboxStore.Key(done, "orders"), new InboxStore.Receipt(true, false, 0)),
				entry(new InboxStore.Key(given, "orders"), new InboxStore.Receipt(false, true, 1)));
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + done + "'")).isEqualTo(3);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + given + "'")).isEqualTo(2);
		assertThatIllegalStateException().isThrownBy(() -> transaction.executeWithoutResult((status) -> store
			.countReceipts(List.of(new InboxStore.Received(new InboxStore.Key(UUID.randomUUID(), "orders"), 1)))))
			.withMessageContaining("only 0 were found");
	}

	private static InboxStore.Receipt receive(UUID id, String consumerId) {
		return transaction.execute((status) -> store.receive(id, consumerId));
	}

	private static InboxStore.Failure recordFailure(UUID id, String consumerId, String error, int faultAt) {
		return transaction.execute((status) -> store.recordFailure(id, consumerId, error, faultAt));
	}

	private static int value(String sql) {
		return new JdbcTemplate(schema.dataSource()).queryForObject(sql.formatted(schema.tables().qualifiedInboxState()), Integer.class);
	}

}
