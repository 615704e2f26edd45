package dev.waybill.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.outbox.test.WireFaultProxy;
import dev.waybill.outbox.test.WireFaultProxy.Fault;

/**
 * An {@code @Outbox} transaction whose COMMIT PostgreSQL carried out but whose answer was lost
 * ({@link WireFaultProxy}): the caller gets an exception, the order and its message are committed,
 * and the message is published at once, not after the lease it was written with for direct dispatch.
 */
class OutboxCommitReplyLossIntegrationTests {

	private TestSchema schema;

	private WireFaultProxy proxy;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.create("commit_reply_loss");
		this.schema.execute("CREATE TABLE " + this.schema.name() + ".orders (id uuid PRIMARY KEY)");
		OrderService.schema = this.schema.name();
		this.proxy = WireFaultProxy.postgres();
	}

	@AfterEach
	void tearDown() {
		this.proxy.close();
		this.schema.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aCommitWhoseAnswerIsLostThrowsAndItsMessageIsPublishedPromptlyNotAfterItsLease(Fault fault) {
		String url = this.proxy.jdbcUrl();
		FakeTransport broker = new FakeTransport();
		WaybillContext.runner(this.schema.name())
			.withUserConfiguration(Application.class)
			.withBean(Transport.class, () -> broker)
			.withPropertyValues("spring.datasource.url=" + url, "waybill.outbox.relay.lease-duration=60s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				OrderService orders = context.getBean(OrderService.class);
				orders.place(UUID.randomUUID()); // warm: connections and prepared statements
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> broker.delivered().size() == 1);

				this.proxy.loseCommitReply((sql) -> sql.contains(".orders"), fault);
				UUID id = UUID.randomUUID();
				Throwable thrown = catchThrowable(() -> orders.place(id));
				assertThat(this.proxy.fired()).isOne();
				assertThat(thrown).isNotNull();
				JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
				assertThat(jdbc.queryForObject("SELECT count(*) FROM " + this.schema.name() + ".orders WHERE id = ?",
						Integer.class, id)).as("committed").isOne();
				// Written leased to the relay for direct dispatch, which the failed commit never handed it: it
				// is given back at once, not left to its lease (60 s) to be claimed.
				Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> broker.delivered().size() == 2);
				assertThat(new String(broker.delivered().get(1).body(), java.nio.charset.StandardCharsets.UTF_8)).contains(id.toString());
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		OrderService orderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
			return new OrderService(jdbc, publisher);
		}

	}

	static class OrderService {

		private final JdbcTemplate jdbc;

		private final OutboxPublisher publisher;

		OrderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
			this.jdbc = jdbc;
			this.publisher = publisher;
		}

		@Outbox
		public void place(UUID id) {
			this.jdbc.update("INSERT INTO " + OrderService.schema + ".orders (id) VALUES (?)", id);
			this.publisher.publish(new Placed(id));
		}

		static volatile String schema;

	}

	@MessageType("test.commit-reply-loss.placed")
	record Placed(UUID id) {
	}

}
