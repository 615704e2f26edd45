package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestSchema;

/**
 * The consumers' database out of reach while deliveries arrive on four consumer threads: every
 * delivery is returned and handled once the database is back, and the outage is told once when it
 * begins and once when it ends, not by every consumer thread at every batch.
 */
class ReceiveEndpointDatabaseOutageIntegrationTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(TestReceiveEndpoint.LOGGER_NAME);

	private TestSchema schema;

	private String queue;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("endpoint_outage");
		this.schema.execute("CREATE TABLE " + this.schema.name() + ".handled (n int NOT NULL)");
		this.queue = "endpoint-outage-" + UUID.randomUUID().toString().substring(0, 8);
		this.logger.setLevel(Level.INFO);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(null);
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			try {
				this.resources.get(i).close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queueDelete(this.queue);
			channel.queueDelete(this.queue + "_error");
		}
		this.schema.close();
	}

	@Test
	void anOutageIsToldOnceWhenItBeginsAndOnceWhenItEndsAndNothingIsLost() throws Exception {
		AtomicBoolean down = new AtomicBoolean();
		AtomicInteger refused = new AtomicInteger();
		DelegatingDataSource database = new DelegatingDataSource(this.schema.dataSource()) {
			@Override
			public java.sql.Connection getConnection() throws SQLException {
				if (down.get()) {
					refused.incrementAndGet();
					throw new SQLException("Connection refused (test)", "08001");
				}
				return super.getConnection();
			}
		};
		TestReceiveEndpoint endpoint = endpoint(database);
		endpoint.start();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			publish(channel, 0);
			Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> handled() == 1);

			down.set(true);
			for (int i = 1; i <= 40; i++) {
				publish(channel, i);
			}
			// Each consumer thread fails what it got and pauses 1 s, several times over.
			Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> refused.get() >= 12);
			assertThat(handled()).isOne();
			down.set(false);
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> handled() == 41);
		}
		assertThat(new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(DISTINCT n) FROM "
				+ this.schema.name() + ".handled", Integer.class)).as("each once").isEqualTo(41);
		List<String> warnings = lines(Level.WARN);
		assertThat(warnings).as(String.join("\n", warnings)).singleElement().asString()
			.startsWith("Waybill could not record").contains(this.queue).contains("Connection refused (test)");
		assertThat(lines(Level.INFO)).filteredOn((line) -> line.contains("again, after")).singleElement().asString()
			.startsWith("Waybill records deliveries on " + this.queue + " again, after PT");
	}

	private List<String> lines(Level level) {
		return this.appender.list.stream().filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage).toList();
	}

	private int handled() {
		Integer count = new JdbcTemplate(this.schema.dataSource())
			.queryForObject("SELECT count(*) FROM " + this.schema.name() + ".handled", Integer.class);
		return (count != null) ? count : 0;
	}

	private void publish(Channel channel, int n) throws Exception {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
			.type(Ping.TYPE).contentType("application/json").deliveryMode(2).build();
		channel.basicPublish("", this.queue, properties, ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
	}

	private TestReceiveEndpoint endpoint(javax.sql.DataSource database) {
		DeliveryProcessor processor = new TestInbox(this.schema, database).deliveryProcessor(RetryPolicy.defaults(), 3);
		Transport transport = TestRabbit.get().transport().build();
		this.resources.add(transport);
		JdbcTemplate handledTable = new JdbcTemplate(database);
		String table = this.schema.name() + ".handled";
		MessageHandler<Ping> handler = (Ping ping, MessageContext context) -> handledTable
			.update("INSERT INTO " + table + " (n) VALUES (?)", ping.n());
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.create(transport, processor,
				List.of(ReceiveEndpoint.on(this.queue).withConcurrency(4).handle(Ping.class, handler)),
				Duration.ofSeconds(20));
		this.resources.add(endpoint);
		return endpoint;
	}

	/** The message. */
	@MessageType(Ping.TYPE)
	public record Ping(int n) {

		static final String TYPE = "test.endpoint-outage-ping";

	}

}
