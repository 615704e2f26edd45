package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.test.ConsumerService;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.test.TestSchema;

/**
 * Closing a service's context (what SIGTERM does) while its consumers handle a stream of messages
 * lets the handlers finish and acknowledge what they hold: no message whose handler ran is
 * delivered again.
 */
class GracefulShutdownIntegrationTests {

	private static final String TYPE = "waybill-test.graceful-shutdown.job";

	private static final int MESSAGES = 120;

	private static final Duration QUICK = Duration.ofMillis(5);

	private TestSchema schema;

	private TestTopology topology;

	private String queue;

	private final Jobs jobs = new Jobs();

	@BeforeEach
	void setUp() {
		this.topology = TestRabbit.get().topology("graceful-shutdown");
		this.topology.deleteLater(TYPE);
		this.queue = this.topology.uniqueName("jobs");
		this.schema = TestSchema.create("shutdown");
	}

	@AfterEach
	void tearDown() {
		ConsumerService.tearDown(this.topology, this.schema, this.queue);
	}

	@Test
	void closingTheContextMidStreamRedeliversNoHandledMessage() {
		service().run((context) -> {
			await().until(TestReceiveEndpoint.of(context)::isConsuming);
			TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			for (int i = 0; i < MESSAGES; i += 10) {
				int first = i;
				transactions.executeWithoutResult((status) -> {
					for (int j = first; j < first + 10; j++) {
						publisher.publish(new Job(j));
					}
				});
			}
			// four handlers busy, the next ones prefetched, most still in the queue or the outbox
			await().until(() -> this.jobs.handled() >= 8 && this.jobs.running.get() == 4);
			assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName).contains("waybill-consumer-1",
					"waybill-consumer-2", "waybill-consumer-3", "waybill-consumer-4", "waybill-consumer-connect",
					"waybill-rabbit-confirm-timeout", "waybill-relay-0", "waybill-outbox-listener");

			long closing = System.nanoTime();
			context.close();
			Duration closed = Duration.ofNanos(System.nanoTime() - closing);
			System.out.println("Graceful shutdown: context closed in " + closed.toMillis() + " ms with "
					+ this.jobs.handled() + " of " + MESSAGES + " jobs handled");
			assertThat(closed).as("the close waits for the running handlers, not for the backlog")
				.isLessThan(Duration.ofSeconds(10));
		});
		int handledByFirst = this.jobs.handled();
		assertThat(handledByFirst).isLessThan(MESSAGES);

		// a second instance finishes the queue and the outbox
		finishIn(service(), MESSAGES);

		assertThat(this.jobs.committedRuns()).as("committed handler runs per job").allSatisfy((job, runs) -> assertThat(runs)
			.as("job %d", job).isOne());
		List<Map<String, Object>> again = jdbc().queryForList("SELECT message_id, receive_count FROM " + this.schema.name()
				+ ".inbox_state WHERE consumer_id = ? AND receive_count > 1", this.queue);
		assertThat(again).as("handled messages delivered again (the inbox saw them as duplicates); the first "
				+ "instance handled %d", handledByFirst).isEmpty();
	}

	@Test
	void withoutBatchedTransactionsAStopStartsNoDeliveryAfterTheRunningOne() {
		// A graceful-stop probe (JPA's transaction manager, so no batches): a lane handed its whole
		// batch of held deliveries to the inbox, which ran every one after the stop began; with slow
		// handlers the stop outran the shutdown timeout and the handlers ran again elsewhere.
		this.jobs.pause = Duration.ofMillis(500);
		service(1, 16).withUserConfiguration(NotJdbcTransactions.class).run((context) -> {
			await().until(TestReceiveEndpoint.of(context)::isConsuming);
			TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			transactions.executeWithoutResult((status) -> {
				for (int i = 0; i < 20; i++) {
					publisher.publish(new Job(i));
				}
			});
			await().until(() -> this.jobs.handled() >= 1 && this.jobs.running.get() == 1);

			context.close();
		});
		assertThat(this.jobs.handled()).as("the running delivery and none after it").isLessThanOrEqualTo(2);

		finishIn(service(1, 16).withUserConfiguration(NotJdbcTransactions.class), 20);
		assertThat(this.jobs.committedRuns()).allSatisfy((job, runs) -> assertThat(runs).as("job %d", job).isOne());
	}

	@Test
	void withBatchedTransactionsAStopStartsNoSlowDeliveryAfterTheRunningOne() {
		// JDBC's transaction manager: batches. A lane handed a batch of up to 16 slow deliveries to the
		// inbox, which ran every one after the stop began. Now slow handlers are never batched.
		this.jobs.pause = Duration.ofMillis(500);
		service(1, 16).run((context) -> {
			await().until(TestReceiveEndpoint.of(context)::isConsuming);
			TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			transactions.executeWithoutResult((status) -> publisher.publish(new Job(0)));
			await().until(() -> this.jobs.handled() == 1); // the lane has seen a slow handler
			transactions.executeWithoutResult((status) -> {
				for (int i = 1; i < 20; i++) {
					publisher.publish(new Job(i));
				}
			});
			await().until(() -> this.jobs.handled() >= 2 && this.jobs.running.get() == 1);

			context.close();
		});
		assertThat(this.jobs.handled()).as("the running delivery and none after it").isLessThanOrEqualTo(3);

		finishIn(service(1, 16), 20);
		assertThat(this.jobs.committedRuns()).allSatisfy((job, runs) -> assertThat(runs).as("job %d", job).isOne());
	}

	private ApplicationContextRunner service() {
		return service(4, 8);
	}

	/**
	 * Runs a second instance until every one of {@code total} jobs is handled and the queue is empty.
	 * Its handlers are quick: what is checked of it is that it finishes the backlog with each job
	 * committed once, not how slow handlers stop.
	 */
	private void finishIn(ApplicationContextRunner service, int total) {
		this.jobs.pause = QUICK;
		service.run((context) -> await().until(() -> this.jobs.handled() == total && queueMessages() == 0));
	}

	private ApplicationContextRunner service(int concurrency, int prefetch) {
		ReceiveEndpoint endpoint = ReceiveEndpoint.on(this.queue)
			.withConcurrency(concurrency)
			.withPrefetch(prefetch)
			.handle(Job.class, this.jobs);
		return ConsumerService.runner(this.schema, endpoint);
	}

	private int queueMessages() throws IOException {
		return this.topology.channel().queueDeclarePassive(this.queue).getMessageCount();
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20));
	}

	@MessageType(TYPE)
	record Job(int number) {
	}

	/**
	 * Takes 200 ms a job unless told otherwise; counts the runs that committed.
	 */
	static final class Jobs implements MessageHandler<Job> {

		final AtomicInteger running = new AtomicInteger();

		volatile Duration pause = Duration.ofMillis(200);

		private final Map<Integer, AtomicInteger> committed = new ConcurrentHashMap<>();

		@Override
		public void handle(Job job, MessageContext context) throws Exception {
			this.running.incrementAndGet();
			try {
				Thread.sleep(this.pause.toMillis());
			}
			finally {
				this.running.decrementAndGet();
			}
			AtomicInteger runs = this.committed.computeIfAbsent(job.number(), (number) -> new AtomicInteger());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					runs.incrementAndGet();
				}

			});
		}

		int handled() {
			return (int) this.committed.values().stream().filter((runs) -> runs.get() > 0).count();
		}

		Map<Integer, Integer> committedRuns() {
			Set<Map.Entry<Integer, AtomicInteger>> entries = this.committed.entrySet();
			return entries.stream().collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().get()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotJdbcTransactions {

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DelegatingTransactionManager(new DataSourceTransactionManager(dataSource));
		}

	}

	/** A transaction manager that is not a JDBC one, as JPA's is: the inbox then runs no batches. */
	static final class DelegatingTransactionManager implements PlatformTransactionManager {

		private final PlatformTransactionManager target;

		DelegatingTransactionManager(PlatformTransactionManager target) {
			this.target = target;
		}

		@Override
		public TransactionStatus getTransaction(TransactionDefinition definition) {
			return this.target.getTransaction(definition);
		}

		@Override
		public void commit(TransactionStatus status) {
			this.target.commit(status);
		}

		@Override
		public void rollback(TransactionStatus status) {
			this.target.rollback(status);
		}

	}

}
