package dev.waybill.samples.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.samples.messages.PaymentMethod;

/**
 * Places orders through the order service's HTTP API, as any client would.
 */
final class OrderClient {

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	private final URI orders;

	OrderClient(int port) {
		this.orders = URI.create("http://localhost:" + port + "/orders");
	}

	/**
	 * Places an order with {@code POST /orders}.
	 * @return the id of the created order
	 * @throws IOException when the service does not answer 201 Created
	 * @throws InterruptedException when interrupted while waiting
	 */
	UUID place(String customer, long totalCents, PaymentMethod paymentMethod) throws IOException, InterruptedException {
		String body = this.json.writeValueAsString(new PlaceOrder(customer, totalCents, paymentMethod));
		HttpRequest request = HttpRequest.newBuilder(this.orders)
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 201) {
			throw new IOException("POST /orders answered " + response.statusCode() + ": " + response.body());
		}
		return this.json.readValue(response.body(), Created.class).id();
	}

	record PlaceOrder(String customer, long totalCents, PaymentMethod paymentMethod) {
	}

	@JsonIgnoreProperties(ignoreUnknown = true)
	record Created(UUID id) {
	}

}
