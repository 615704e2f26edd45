package dev.waybill.samples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.samples.messages.CustomerRegistered;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentCaptured;
import dev.waybill.samples.messages.PaymentMethod;
import dev.waybill.samples.test.SampleInfrastructure;
import dev.waybill.test.AutoConfigureWaybillTest;
import dev.waybill.test.Delivery;
import dev.waybill.test.ObservedMessage;
import dev.waybill.test.TestTransport;
import dev.waybill.test.WaybillTestHarness;

/**
 * The order service's HTTP API, run as the application on a real PostgreSQL with the test
 * harness's in-memory transport in place of RabbitMQ: what each request published is observed by
 * the harness, and the payment handler gets its messages from the harness.
 */
@SpringBootTest(classes = OrderServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=" + OrderServiceApplication.CONFIG_NAME, "waybill.inbox.retry.interval=50ms",
				"spring.datasource.hikari.connection-timeout=3000" })
@AutoConfigureWaybillTest(transport = TestTransport.IN_MEMORY)
@Import(SampleInfrastructure.DropOnClose.class)
class OrderApiIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		SampleInfrastructure.database(registry, "order_api");
	}

	@Autowired
	WaybillTestHarness harness;

	@Autowired
	org.springframework.core.env.Environment environment;

	@Autowired
	DataSource dataSource;

	@LocalServerPort
	int port;

	URI orders;

	@BeforeEach
	void orders() {
		this.orders = URI.create("http://localhost:" + this.port + "/orders");
	}

	@AfterEach
	void settle() {
		this.harness.awaitIdle();
	}

	@Test
	void postPlacesTheOrderAndPublishesItsEventsInTheSameTransaction() throws Exception {
		HttpResponse<String> created = post("{\"customer\": \"ada\", \"totalCents\": 1250, \"paymentMethod\": \"CARD\"}");

		assertThat(created.statusCode()).isEqualTo(201);
		JsonNode order = json.readTree(created.body());
		UUID id = UUID.fromString(order.get("id").asString());
		assertThat(created.headers().firstValue("Location")).hasValue("/orders/" + id);
		assertThat(order.get("customer").asString()).isEqualTo("ada");
		assertThat(order.get("totalCents").asLong()).isEqualTo(1250);
		assertThat(order.get("status").asString()).isEqualTo("PLACED");

		// One transaction: the OrderPlaced the order raised and, as it is ada's first order, CustomerRegistered.
		ObservedMessage<OrderPlaced> placed = this.harness.awaitPublished(OrderPlaced.class,
				(event) -> event.orderId().equals(id));
		assertThat(this.harness.committedWith(placed.messageId())).extracting(ObservedMessage::message)
			.containsExactlyInAnyOrder(new OrderPlaced(id, "ada", 1250, PaymentMethod.CARD), new CustomerRegistered("ada"));

		// A second order of the same customer raises OrderPlaced only.
		UUID second = UUID.fromString(json.readTree(post("{\"customer\": \"ada\", \"totalCents\": 90, "
				+ "\"paymentMethod\": \"INVOICE\"}").body()).get("id").asString());
		UUID secondPlaced = this.harness.awaitPublished(OrderPlaced.class, (event) -> event.orderId().equals(second))
			.messageId();
		assertThat(this.harness.committedWith(secondPlaced)).extracting(ObservedMessage::message)
			.containsExactly(new OrderPlaced(second, "ada", 90, PaymentMethod.INVOICE));
		// Both events reached the relay, bound for the billing service's queues.
		this.harness.awaitRelayed(OrderPlaced.class, (event) -> event.orderId().equals(second));
	}

	@Test
	void anOrderPostedWhileTheDatabaseRefusesConnectionsIsAnswered503WithRetryAfter() throws Exception {
		// The soak's database blips answered 500 and logged Spring's stack trace per request.
		String database = this.environment.getRequiredProperty("samples.test.database");
		admin("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
		try {
			admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
			HttpResponse<String> refused = post("{\"customer\": \"ada\", \"totalCents\": 1250, \"paymentMethod\": \"CARD\"}");

			assertThat(refused.statusCode()).isEqualTo(503);
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(json.readTree(refused.body()).get("detail").asString()).contains("nothing was saved");
		}
		finally {
			admin("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
			// The pool's idle connections were terminated above; one validated less than half a second
			// ago is handed out unchecked, and the harness's wait for idle after the test failed on it.
			this.dataSource.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
		}
	}

	private static void admin(String sql) throws java.sql.SQLException {
		try (java.sql.Connection connection = TestPostgres.get().connect();
				java.sql.Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	@Test
	void getShowsAPlacedOrderAndAnswers404ForAnUnknownOne() throws Exception {
		JsonNode placed = json.readTree(post("{\"customer\": \"grace\", \"totalCents\": 700, "
				+ "\"paymentMethod\": \"INVOICE\"}").body());

		HttpResponse<String> found = get(placed.get("id").asString());
		assertThat(found.statusCode()).isEqualTo(200);
		assertThat(json.readTree(found.body())).isEqualTo(placed);

		assertThat(get(UUID.randomUUID().toString()).statusCode()).isEqualTo(404);
	}

	@Test
	void badFieldsAreAnswered400NamingEachFieldAndNothingIsPublished() throws Exception {
		assertBadRequest(post("{\"customer\": \" \", \"totalCents\": 0, \"paymentMethod\": \"CARD\"}"),
				Map.of("customer", "must not be blank", "totalCents", "must be greater than 0"));
		assertBadRequest(post("{\"customer\": \"ada\", \"paymentMethod\": \"CARD\"}"),
				Map.of("totalCents", "must not be null"));
		assertBadRequest(post("{\"customer\": \"ada\", \"totalCents\": 5, \"paymentMethod\": \"GOLD\"}"),
				Map.of("paymentMethod", "'GOLD' must be one of [CARD, INVOICE, BARTER]"));
		assertBadRequest(post("{\"customer\": \"ada\", \"totalCents\": \"ten\", \"paymentMethod\": \"CARD\"}"),
				Map.of("totalCents", "'ten' must be a Long"));
		assertBadRequest(post("{\"customer\": \"" + "x".repeat(101) + "\", \"totalCents\": 5, \"paymentMethod\": \"CARD\"}"),
				Map.of("customer", "size must be between 0 and 100"));
		assertBadRequest(post("not json"), Map.of("body", "is not a JSON object of customer, totalCents and paymentMethod"));
		assertBadRequest(get("not-a-uuid"), Map.of("id", "'not-a-uuid' is not a valid UUID"));

		assertThat(this.harness.published()).isEmpty();
	}

	@Test
	void aCapturedPaymentMarksTheOrderPaidOnceHoweverOftenItIsDelivered() throws Exception {
		UUID id = UUID.fromString(json.readTree(post("{\"customer\": \"lin\", \"totalCents\": 300, "
				+ "\"paymentMethod\": \"CARD\"}").body()).get("id").asString());
		PaymentCaptured captured = new PaymentCaptured(id, UUID.randomUUID(), 300);

		Delivery delivery = this.harness.deliver(PaymentCapturedHandler.class, captured);

		assertThat(delivery.outcome()).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(json.readTree(get(id.toString()).body()).get("status").asString()).isEqualTo("PAID");
		assertThat(delivery.redeliver().outcome()).isEqualTo(InboxOutcome.DUPLICATE);
		assertThat(this.harness.consumed(PaymentCapturedHandler.class, PaymentCaptured.class)).hasSize(1);
	}

	@Test
	void aPaymentForAnOrderThatDoesNotExistEndsInTheErrorQueue() {
		PaymentCaptured stray = new PaymentCaptured(UUID.randomUUID(), UUID.randomUUID(), 1);

		assertThat(this.harness.deliver(PaymentCapturedHandler.class, stray).outcome())
			.isEqualTo(InboxOutcome.RETRY_SCHEDULED);

		// Retried with backoff (through the outbox, the relay and the in-memory transport), then given up.
		this.harness.awaitFaulted(PaymentCapturedHandler.class, PaymentCaptured.class, (payment) -> payment.equals(stray));
	}

	private static void assertBadRequest(HttpResponse<String> response, Map<String, String> errors) {
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode problem = json.readTree(response.body());
		assertThat(json.convertValue(problem.get("errors"), Map.class)).isEqualTo(errors);
		errors.forEach((field, error) -> assertThat(problem.get("detail").asString()).contains(field + " " + error));
	}

	private HttpResponse<String> post(String body) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(this.orders)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String id) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(URI.create(this.orders + "/" + id)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
