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
	void markProcessedMarksManyRowsInOneStatement() {
		UUID first = UUID.randomUUID();
		UUID second = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(first, "orders");
			store.receive(second, "orders");
			store.receive(second, "billing");
			store.markProcessed(List.of(new InboxStore.Handled(first, "orders"), new InboxStore.Handled(second, "billing")));
		});
		assertThat(receive(first, "orders")).isEqualTo(new InboxStore.Receipt(true, false, 0));
		assertThat(receive(second, "billing")).isEqualTo(new InboxStore.Receipt(true, false, 0));
		assertThat(receive(second, "orders")).as("not in the list").isEqualTo(new InboxStore.Receipt(false, false, 0));
	}

	@Test
	void receiveOfManyRowsInsertsTheNewCountsEveryReceiptAndSaysWhichItInserted() {
		UUID fresh = UUID.randomUUID();
		UUID seen = UUID.randomUUID();
		UUID done = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(seen, "orders");
			store.receive(done, "orders");
			store.markProcessed(done, "orders");
		});
		Map<InboxStore.Key, InboxStore.BatchReceipt> receipts = transaction.execute((status) -> store.receive(List.of(
				new InboxStore.Received(new InboxStore.Key(fresh, "orders"), 3),
				new InboxStore.Received(new InboxStore.Key(seen, "orders"), 1),
				new InboxStore.Received(new InboxStore.Key(done, "orders"), 2))));
		assertThat(receipts).containsOnly(
				entry(new InboxStore.Key(fresh, "orders"), new InboxStore.BatchReceipt(new InboxStore.Receipt(false, false, 0), true)),
				entry(new InboxStore.Key(seen, "orders"), new InboxStore.BatchReceipt(new InboxStore.Receipt(false, false, 0), false)),
				entry(new InboxStore.Key(done, "orders"), new InboxStore.BatchReceipt(new InboxStore.Receipt(true, false, 0), false)));
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + fresh + "'")).isEqualTo(3);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + seen + "'")).isEqualTo(2);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + done + "'")).isEqualTo(3);
	}

	@Test
	void withdrawDeletesTheRowsReceivedForTheWithdrawnReceiptsAloneAndUncountsTheOthers() {
		UUID fresh = UUID.randomUUID();
		UUID partly = UUID.randomUUID();
		UUID seen = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> store.receive(seen, "orders"));
		transaction.executeWithoutResult((status) -> {
			store.receive(List.of(new InboxStore.Received(new InboxStore.Key(fresh, "orders"), 1),
					new InboxStore.Received(new InboxStore.Key(partly, "orders"), 2),
					new InboxStore.Received(new InboxStore.Key(seen, "orders"), 1)));
			store.withdraw(List.of(new InboxStore.Withdrawn(new InboxStore.Key(fresh, "orders"), 1, true),
					new InboxStore.Withdrawn(new InboxStore.Key(partly, "orders"), 1, false),
					new InboxStore.Withdrawn(new InboxStore.Key(seen, "orders"), 1, false)));
		});
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + fresh + "'")).isZero();
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + partly + "'")).isEqualTo(1);
		assertThat(value("SELECT receive_count FROM %s WHERE message_id = '" + seen + "'")).isEqualTo(1);
		assertThatIllegalStateException().isThrownBy(() -> transaction.executeWithoutResult((status) -> store
			.withdraw(List.of(new InboxStore.Withdrawn(new InboxStore.Key(UUID.randomUUID(), "orders"), 1, true)))))
			.withMessageContaining("only 0 were found");
	}

	@Test
	void markProcessedOfManyRowsNeedsEachReceivedAndUnprocessed() {
		UUID received = UUID.randomUUID();
		UUID processed = UUID.randomUUID();
		transaction.executeWithoutResult((status) -> {
			store.receive(processed, "orders");
			store.markProcessed(processed, "orders");
		});
		assertThatIllegalStateException().isThrownBy(() -> transaction.executeWithoutResult((status) -> {
			store.receive(received, "orders");
			store.markProcessed(List.of(new InboxStore.Handled(received, "orders"),
					new InboxStore.Handled(processed, "orders")));
		})).withMessageContaining("only 1 were received and neither processed nor faulted");
		assertThat(value("SELECT count(*) FROM %s WHERE message_id = '" + received + "'")).as("rolled back").isZero();
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
