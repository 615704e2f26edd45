package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.rabbit.test.ConsumerService;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.test.TestSchema;

/**
 * A handler that throws a JVM {@link Error} (an {@link OutOfMemoryError}) on the unbatched,
 * unpartitioned path ({@code waybill.inbox.batch.max-size=1}, no partitioning by ordering key):
 * the delivery stays unacknowledged while its channel lives, and the endpoint consumes on.
 */
class ConsumerErrorIntegrationTests {

	private static final String TYPE = "waybill-test.consumer-error.ping";

	private TestSchema schema;

	private TestTopology topology;

	private String queue;

	private final Pings pings = new Pings();

	@BeforeEach
	void setUp() {
		this.topology = TestRabbit.get().topology("consumer-error");
		this.topology.deleteLater(TYPE);
		this.queue = this.topology.uniqueName("pings");
		this.schema = TestSchema.create("consumererror");
	}

	@AfterEach
	void tearDown() {
		ConsumerService.tearDown(this.topology, this.schema, this.queue);
	}

	@Test
	void anOutOfMemoryErrorFromAHandlerLeavesItsDeliveryUnacknowledgedAndTheEndpointConsumesOn() {
		service().run((context) -> {
			assertThat(context).hasNotFailed();
			TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
			await().until(endpoint::isConsuming);
			UUID before = publish("ok");
			await().until(() -> this.pings.handled(before) == 1);

			UUID poisoned = publish("oom");
			await().until(() -> this.pings.entered(poisoned) == 1);
			List<UUID> later = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				later.add(publish("ok"));
			}
			// the endpoint consumes on: on the same channel (concurrency 1), before the fix closed for good
			await().until(() -> later.stream().allMatch((ping) -> this.pings.handled(ping) == 1));
			assertThat(endpoint.isConsuming()).isTrue();

			// the poisoned delivery: neither acknowledged nor requeued nor moved to the error queue
			assertThat(this.pings.entered(poisoned)).as("handler runs of the poisoned delivery").isOne();
			assertThat(this.pings.handled(poisoned)).isZero();
			assertThat(processed()).isEqualTo(1 + later.size());
			assertThat(queueMessages(this.queue)).as("ready in the queue").isZero();
			assertThat(queueMessages(this.queue + "_error")).as("ready in the error queue").isZero();
			assertThat(consumers(this.queue)).isOne();
		});
		// unacknowledged, it went back to the queue when the channel closed
		await().until(() -> queueMessages(this.queue) == 1);
		assertThat(queueMessages(this.queue + "_error")).isZero();
	}

	private ApplicationContextRunner service() {
		ReceiveEndpoint endpoint = ReceiveEndpoint.on(this.queue)
			.withConcurrency(1)
			.withPrefetch(4)
			.withPartitionByOrderingKey(false)
			.handle(Ping.class, this.pings);
		return ConsumerService.runner(this.schema, endpoint)
			.withPropertyValues("waybill.inbox.batch.max-size=1", "waybill.inbox.partition-by-ordering-key=false",
					"waybill.inbox.shutdown-timeout=5s");
	}

	private UUID publish(String mode) throws IOException {
		return ConsumerService.publishPing(this.topology, TYPE, mode);
	}

	/** The ready messages of a queue, -1 when it does not exist. */
	private int queueMessages(String name) {
		return ConsumerService.readyMessages(this.topology, name);
	}

	private int consumers(String name) {
		try {
			return this.topology.channel().queueDeclarePassive(name).getConsumerCount();
		}
		catch (IOException ex) {
			return -1;
		}
	}

	private int processed() {
		return ConsumerService.processed(this.schema, this.queue);
	}

	private static ConditionFactory await() {
		// the Error is caught by the endpoint; should it reach a thread's handler, the test fails on what it asserts
		return Awaitility.await()
			.atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(50))
			.dontCatchUncaughtExceptions();
	}

	@MessageType(TYPE)
	record Ping(UUID id, String mode) {
	}

	/** Counts the handler runs and the committed runs per ping; an "oom" ping throws an OutOfMemoryError. */
	static final class Pings implements MessageHandler<Ping> {

		private final Map<UUID, AtomicInteger> entered = new ConcurrentHashMap<>();

		private final Map<UUID, AtomicInteger> committed = new ConcurrentHashMap<>();

		@Override
		public void handle(Ping ping, MessageContext context) {
			this.entered.computeIfAbsent(ping.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if ("oom".equals(ping.mode())) {
				throw new OutOfMemoryError("injected");
			}
			AtomicInteger count = this.committed.computeIfAbsent(ping.id(), (id) -> new AtomicInteger());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					count.incrementAndGet();
				}

			});
		}

		int entered(UUID ping) {
			AtomicInteger count = this.entered.get(ping);
			return (count != null) ? count.get() : 0;
		}

		int handled(UUID ping) {
			AtomicInteger count = this.committed.get(ping);
			return (count != null) ? count.get() : 0;
		}

	}

}
