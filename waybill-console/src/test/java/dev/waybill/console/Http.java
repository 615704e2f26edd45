package dev.waybill.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small JSON client for the endpoint tests.
 */
final class Http {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final String base;

	Http(String base) {
		this.base = base;
	}

	Response get(String path) throws Exception {
		return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET());
	}

	Response post(String path, String json) throws Exception {
		return send(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)));
	}

	private Response send(HttpRequest.Builder request) throws Exception {
		HttpResponse<String> response = this.client.send(request.timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
		return new Response(response.statusCode(), response.body());
	}

	record Response(int status, String body) {

		JsonNode json() {
			return JSON.readTree(this.body);
		}

	}

}
