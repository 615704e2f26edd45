package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.ForwardingOutboxStore;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay publishes a claim's messages while the claim commits, and records their outcome only
 * once it committed: a slow claim commit delays the bookkeeping, never the delivery, and causes no
 * second delivery.
 */
class OverlappedClaimCommitRelayIntegrationTests {

	/** How long a claim's commit waits, at most, for its messages to be delivered. */
	private static final Duration COMMIT_HELD_AT_MOST = Duration.ofSeconds(10);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private TestTopology topology;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("overlappedclaim");
		this.topology = TestRabbit.get().topology("overlappedclaim");
	}

	@AfterEach
	void tearDown() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.topology.close();
		this.schema.close();
	}

	@Test
	void messagesReachTheBrokerBeforeTheirClaimCommitsAndAreMarkedOnceItDidWithoutASecondDelivery() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TestOutbox writer = TestOutbox.on(this.schema);
		int scopes = 5;
		for (int i = 0; i < scopes; i++) {
			writer.writer().write(TestMessages.scope(queue.exchange(), "m" + i));
		}
		Map<String, Long> deliveredAt = new ConcurrentHashMap<>();
		CountDownLatch allDelivered = new CountDownLatch(scopes);
		List<String> deliveries = consume(queue, deliveredAt, allDelivered);
		// The claim commits once its messages were delivered: a relay that waited for the commit to
		// publish would deliver them only after the hold ran out. (A commit held for a fixed second
		// raced the first connection, the publish and the delivery on a busy machine.)
		SlowCommitStore store = new SlowCommitStore(writer.store(), allDelivered);
		// A lease shorter than the wait below: a scope whose published mark was lost (made before the
		// claim committed, so fenced out) would be delivered again.
		Duration lease = Duration.ofSeconds(3);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(store, TestRabbit.get().transport().build())
			.wakeUp(wakeUp)
			.settings(1, scopes, lease, Duration.ofMillis(200), Duration.ofSeconds(5), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1))
			.build();
		this.resources.add(relay::stop);
		relay.start();
		wakeUp.signal();

		Awaitility.await().atMost(COMMIT_HELD_AT_MOST.plusSeconds(20)).until(() -> writer.store().stats().pendingScopes() == 0);
		assertThat(store.committedAt).as("the claim's commit was handed over").isNotEmpty();
		long firstCommit = store.committedAt.get(0);
		assertThat(deliveredAt.values()).as("delivered before the claim committed").hasSize(scopes)
			.allSatisfy((at) -> assertThat(at).isLessThan(firstCommit));
		Thread.sleep(lease.toMillis() + 1000); // a lost mark would show as a second delivery by now
		assertThat(deliveries).hasSize(scopes).doesNotHaveDuplicates();
		OutboxStats stats = writer.store().stats();
		assertThat(stats.pendingScopes()).isZero();
		assertThat(stats.deadScopes()).isZero();
	}

	private List<String> consume(BoundQueue queue, Map<String, Long> deliveredAt, CountDownLatch delivered)
			throws Exception {
		List<String> ids = new CopyOnWriteArrayList<>();
		com.rabbitmq.client.Connection consumer = TestRabbit.get().connect();
		this.resources.add(consumer);
		Channel channel = consumer.createChannel();
		channel.basicConsume(queue.name(), true, new DefaultConsumer(channel) {
			@Override
			public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
				ids.add(properties.getMessageId());
				if (deliveredAt.putIfAbsent(properties.getMessageId(), System.nanoTime()) == null) {
					delivered.countDown();
				}
			}
		});
		return ids;
	}

	/**
	 * The JDBC store whose claims commit only once the test's messages were delivered
	 * ({@link #COMMIT_HELD_AT_MOST} at most), as a commit queued behind a busy WAL would, only
	 * longer.
	 */
	private static final class SlowCommitStore extends ForwardingOutboxStore {

		final List<Long> committedAt = new CopyOnWriteArrayList<>();

		private final CountDownLatch delivered;

		SlowCommitStore(OutboxStore delegate, CountDownLatch delivered) {
			super(delegate);
			this.delivered = delivered;
		}

		@Override
		public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
			return delegate().claim(leaseOwner, lease, limit, (commit) -> commitOn.execute(() -> {
				try {
					this.delivered.await(COMMIT_HELD_AT_MOST.toMillis(), TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				commit.run();
				this.committedAt.add(System.nanoTime());
			}));
		}

	}

}
