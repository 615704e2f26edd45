package dev.waybill.samples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.samples.messages.CustomerRegistered;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The order service's HTTP API, run as the application on a real PostgreSQL and RabbitMQ, with its
 * relay off so that what each request wrote to the outbox stays to be read.
 */
class OrderApiIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static SampleInfrastructure infrastructure;

	private static ConfigurableApplicationContext service;

	private static JdbcTemplate jdbc;

	private static URI orders;

	@BeforeAll
	static void start() {
		infrastructure = SampleInfrastructure.create("order_api");
		List<String> args = new ArrayList<>(infrastructure.arguments());
		args.add("--server.port=0");
		args.add("--waybill.outbox.relay.enabled=false");
		service = OrderServiceApplication.application().run(args.toArray(String[]::new));
		jdbc = service.getBean(JdbcTemplate.class);
		orders = URI.create("http://localhost:" + service.getEnvironment().getProperty("local.server.port") + "/orders");
	}

	@AfterAll
	static void stop() {
		try {
			if (service != null) {
				service.close();
			}
		}
		finally {
			infrastructure.close();
		}
	}

	@Test
	void postPlacesTheOrderAndWritesItsEventsInTheSameTransaction() throws Exception {
		HttpResponse<String> created = post("{\"customer\": \"ada\", \"totalCents\": 1250, \"paymentMethod\": \"CARD\"}");

		assertThat(created.statusCode()).isEqualTo(201);
		JsonNode order = json.readTree(created.body());
		UUID id = UUID.fromString(order.get("id").asString());
		assertThat(created.headers().firstValue("Location")).hasValue("/orders/" + id);
		assertThat(order.get("customer").asString()).isEqualTo("ada");
		assertThat(order.get("totalCents").asLong()).isEqualTo(1250);
		assertThat(order.get("status").asString()).isEqualTo("PLACED");

		// One scope: the OrderPlaced the order raised and, as it is ada's first order, CustomerRegistered.
		List<Map<String, Object>> messages = jdbc.queryForList("SELECT outbox_id, message_type, "
				+ "convert_from(body, 'UTF8') AS body FROM orders.outbox_message WHERE outbox_id = (SELECT outbox_id "
				+ "FROM orders.outbox_message WHERE convert_from(body, 'UTF8') LIKE ?) ORDER BY sequence_number",
				"%" + id + "%");
		assertThat(messages).extracting((row) -> row.get("message_type"))
			.containsExactlyInAnyOrder(OrderPlaced.TYPE, CustomerRegistered.TYPE);
		Map<String, Object> placed = messages.stream()
			.filter((row) -> OrderPlaced.TYPE.equals(row.get("message_type")))
			.findFirst()
			.orElseThrow();
		assertThat(json.readValue((String) placed.get("body"), OrderPlaced.class))
			.isEqualTo(new OrderPlaced(id, "ada", 1250, dev.waybill.samples.messages.PaymentMethod.CARD));

		// A second order of the same customer raises OrderPlaced only.
		UUID second = UUID.fromString(json.readTree(post("{\"customer\": \"ada\", \"totalCents\": 90, "
				+ "\"paymentMethod\": \"INVOICE\"}").body()).get("id").asString());
		assertThat(jdbc.queryForList("SELECT message_type FROM orders.outbox_message WHERE outbox_id = (SELECT "
				+ "outbox_id FROM orders.outbox_message WHERE convert_from(body, 'UTF8') LIKE ?)", String.class,
				"%" + second + "%"))
			.containsExactly(OrderPlaced.TYPE);
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
	void badFieldsAreAnswered400NamingEachFieldAndNothingIsWritten() throws Exception {
		long before = jdbc.queryForObject("SELECT count(*) FROM orders.outbox_message", Long.class);

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

		assertThat(jdbc.queryForObject("SELECT count(*) FROM orders.outbox_message", Long.class)).isEqualTo(before);
	}

	private static void assertBadRequest(HttpResponse<String> response, Map<String, String> errors) {
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode problem = json.readTree(response.body());
		assertThat(json.convertValue(problem.get("errors"), Map.class)).isEqualTo(errors);
		errors.forEach((field, error) -> assertThat(problem.get("detail").asString()).contains(field + " " + error));
	}

	private static HttpResponse<String> post(String body) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(orders)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpResponse<String> get(String id) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(URI.create(orders + "/" + id)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
