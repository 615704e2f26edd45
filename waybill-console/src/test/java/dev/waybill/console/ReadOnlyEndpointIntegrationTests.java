package dev.waybill.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Without {@code waybill.admin.write-enabled=true} the endpoint reads but changes nothing: its
 * write operations do not exist.
 */
class ReadOnlyEndpointIntegrationTests {

	private static ConsoleTestApp app;

	@BeforeAll
	static void start() {
		app = ConsoleTestApp.start("readonly", false);
	}

	@AfterAll
	static void stop() throws Exception {
		if (app != null) {
			app.close();
		}
	}

	@Test
	void readsWorkAndWritesAreNotThere() throws Exception {
		Http http = new Http(app.baseUrl() + "/actuator/waybill");
		assertThat(http.get("").json().get("writeEnabled").asBoolean()).isFalse();
		assertThat(http.get("/scopes?status=dead").status()).isEqualTo(200);
		Http.Response write = http.post("/scopes/delete", "{\"ids\": \"" + UUID.randomUUID() + "\"}");
		assertThat(write.status()).isEqualTo(405);
		assertThat(http.post("/error-queues/redrive", "{\"queue\": \"" + app.queue + "\"}").status()).isEqualTo(405);
	}

}
