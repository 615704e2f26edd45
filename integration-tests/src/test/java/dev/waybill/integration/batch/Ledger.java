package dev.waybill.integration.batch;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

/**
 * The consuming service of the batching tests: a handler whose behaviour each entry's mode
 * chooses, recording its effect as a row in {@code entries}, publishing a {@link Booked} event
 * (the consumer outbox) and noting the database transaction it ran in. Run as a process of its own
 * by the crash test (arguments are Spring Boot properties).
 */
@Configuration(proxyBeanMethods = false)
public class Ledger {

	static final String QUEUE = "waybill-test.batch.ledger";

	static final String ENTRY_TYPE = "waybill-test.batch.entry";

	static final String BOOKED_TYPE = "waybill-test.batch.booked";

	/** Handler runs per entry id, in this process. */
	static final Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();

	/** The database transaction (txid_current) each successful handler run was in, by entry id. */
	static final Map<UUID, Long> transactions = new ConcurrentHashMap<>();

	/** The sequence numbers each key's handler runs saw, in the order they ran. */
	static final Map<String, List<Integer>> sequences = new ConcurrentHashMap<>();

	/** A "stall" entry's handler notes its backend here and waits for the gate. */
	static volatile CountDownLatch stalled = new CountDownLatch(1);

	static volatile CountDownLatch gate = new CountDownLatch(0);

	static volatile int stalledBackend;

	static void reset() {
		runs.clear();
		transactions.clear();
		sequences.clear();
		stalled = new CountDownLatch(1);
		gate = new CountDownLatch(0);
		stalledBackend = 0;
	}

	@MessageType(ENTRY_TYPE)
	record Entry(UUID id, String mode, String key, int seq) {
	}

	@MessageType(BOOKED_TYPE)
	record Booked(UUID entryId) {
	}

	@Bean
	LedgerHandler ledgerHandler(JdbcTemplate jdbc, @Value("${waybill.schema}") String schema) {
		return new LedgerHandler(jdbc, schema);
	}

	/**
	 * In the crash test's process: ends the process right after the batch holding the entry of
	 * sequence number {@code waybill.test.halt-after-commit-of} committed, before its acknowledgements.
	 */
	@Bean
	InboxListener haltAfterCommit() {
		String seq = System.getProperty("waybill.test.halt-after-commit-of");
		return (consumer, message, outcome) -> {
			if (seq != null && new String(message.body(), java.nio.charset.StandardCharsets.UTF_8)
				.contains("\"seq\":" + seq + "}")) {
				System.out.println("COMMITTED " + message.messageId());
				System.out.flush();
				Runtime.getRuntime().halt(3);
			}
		};
	}

	@Consumer(queue = QUEUE, concurrency = 2, prefetch = 16)
	static class LedgerHandler implements MessageHandler<Entry> {

		private final JdbcTemplate jdbc;

		private final String schema;

		LedgerHandler(JdbcTemplate jdbc, String schema) {
			this.jdbc = jdbc;
			this.schema = schema;
		}

		@Override
		public void handle(Entry entry, MessageContext context) throws Exception {
			runs.computeIfAbsent(entry.id(), (id) -> new AtomicInteger()).incrementAndGet();
			this.jdbc.update("INSERT INTO " + this.schema + ".entries (entry_id, mode) VALUES (?, ?)", entry.id(),
					entry.mode());
			context.publish(new Booked(entry.id()));
			switch (entry.mode()) {
				case "fail" -> throw new IllegalStateException("entry " + entry.id() + " refused");
				case "stall" -> {
					if (stalledBackend == 0) {
						stalledBackend = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
						stalled.countDown();
						gate.await();
					}
					this.jdbc.update("INSERT INTO " + this.schema + ".entries (entry_id, mode) VALUES (?, 'after')",
							entry.id());
				}
				default -> {
				}
			}
			transactions.put(entry.id(), this.jdbc.queryForObject("SELECT txid_current()", Long.class));
			if (!entry.key().isEmpty()) {
				sequences.computeIfAbsent(entry.key(), (key) -> new CopyOnWriteArrayList<>()).add(entry.seq());
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Process {

	}

	public static void main(String[] args) {
		new SpringApplicationBuilder(Process.class, Ledger.class).run(args);
		System.out.println("CONSUMER STARTED");
		System.out.flush();
	}

}
