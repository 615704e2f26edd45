package dev.waybill.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.replay.autoconfigure.WaybillReplayAutoConfiguration;

/**
 * A replay with the original message ids to a consumer that already processed them: its inbox
 * recognises each one and the handler is not called again. Once the inbox rows are gone (the
 * duplicate-detection window passed and retention purged them), the same replay is processed again.
 */
class ReplayInboxIntegrationTests {

	static final String TYPE = "waybill-test.replay.ping";

	static final String QUEUE = "waybill-test.replay.pings";

	static final Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();

	private TestSchema schema;

	private Connection rabbit;

	@BeforeEach
	void setUp() throws Exception {
		handled.clear();
		this.schema = TestSchema.create("replay_inbox");
		this.rabbit = TestRabbit.get().connect();
		deleteTopology();
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void replayedMessagesWithTheirIdsAreSkippedByTheConsumersInboxAndProcessedAgainOnceItsRowsArePurged() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			String inbox = this.schema.tables().qualifiedInboxState();
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult((status) -> {
				for (int i = 0; i < 20; i++) {
					context.getBean(OutboxPublisher.class).publish(new Ping(i));
				}
			});
			await().until(() -> total() == 20);
			await().until(() -> jdbc.queryForObject("SELECT count(*) FROM " + inbox + " WHERE processed_at IS NOT NULL",
					Integer.class) == 20);
			await().until(() -> pending(jdbc) == 0);

			Replays replays = context.getBean(Replays.class);
			ReplayJob job = replays.start(ReplayRequest.all().messageType(TYPE));
			await().until(() -> replays.find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
			assertThat(replays.find(job.id()).orElseThrow().replayed()).isEqualTo(20);
			// Every copy arrived and was recognised: the inbox counted it, the handler did not run.
			await().until(() -> jdbc.queryForObject("SELECT count(*) FROM " + inbox + " WHERE receive_count = 2",
					Integer.class) == 20);
			assertThat(total()).isEqualTo(20);
			assertThat(handled.values()).allSatisfy((count) -> assertThat(count.get()).isOne());

			// A consumer whose inbox rows were purged cannot tell: it processes the replay again.
			await().until(() -> pending(jdbc) == 0);
			jdbc.update("DELETE FROM " + inbox);
			ReplayJob again = replays.start(ReplayRequest.all().messageType(TYPE));
			await().until(() -> replays.find(again.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
			assertThat(replays.find(again.id()).orElseThrow().replayed())
				.as("the originals only: the first replay's copies (published, below the bound) are not selected")
				.isEqualTo(20);
			await().until(() -> total() >= 20 + 20);
		});
	}

	private int pending(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending'", Integer.class);
	}

	private static int total() {
		return handled.values().stream().mapToInt(AtomicInteger::get).sum();
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100));
	}

	private ApplicationContextRunner runner() {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class,
					WaybillReplayAutoConfiguration.class))
			.withBean(PingHandler.class)
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "waybill.replay.poll-interval=100ms",
					"spring.datasource.hikari.maximum-pool-size=6");
	}

	private void deleteTopology() throws Exception {
		try (Channel channel = this.rabbit.createChannel()) {
			channel.queueDelete(QUEUE);
			channel.queueDelete(QUEUE + "_error");
			channel.exchangeDelete(TYPE);
		}
	}

	@MessageType(TYPE)
	record Ping(int number) {
	}

	@Consumer(queue = QUEUE)
	static class PingHandler implements MessageHandler<Ping> {

		@Override
		public void handle(Ping ping, MessageContext context) {
			handled.computeIfAbsent(ping.number(), (n) -> new AtomicInteger()).incrementAndGet();
		}

	}

}
