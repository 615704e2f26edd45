package dev.waybill.benchmarks;

import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;

/**
 * Business transactions that do nothing but publish one 1 KiB {@link BenchOrder} through the
 * {@link OutboxPublisher}, each in its own Spring-managed transaction, on a few threads.
 */
final class MessageWriters {

	private final TransactionTemplate transactions;

	private final OutboxPublisher publisher;

	private final String destination;

	private final int threads;

	MessageWriters(OutboxWiring wiring, String destination, int threads) {
		this.transactions = wiring.transactions();
		this.publisher = wiring.publisher();
		this.destination = destination;
		this.threads = threads;
	}

	/**
	 * Commits {@code messages} transactions of one message each and returns when all have.
	 * @param messages how many
	 */
	void publish(int messages) throws InterruptedException {
		Parallel.run(this.threads, messages, (seq) -> this.transactions
			.executeWithoutResult((status) -> this.publisher.send(this.destination, BenchOrder.of(seq))));
	}

}
