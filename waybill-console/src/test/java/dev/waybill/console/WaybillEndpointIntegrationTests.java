package dev.waybill.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.micrometer.core.instrument.MeterRegistry;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

import dev.waybill.console.ConsoleTestApp.Order;
import dev.waybill.console.ConsoleTestApp.TenantUnroutable;
import dev.waybill.console.ConsoleTestApp.Unroutable;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.test.TestRabbit;

/**
 * The Actuator endpoint over HTTP, on a running application with real PostgreSQL and RabbitMQ: it
 * shows dead scopes and error-queue messages the test made happen, looks into them without losing
 * them, and its writes redrive, delete and discard, each audited.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestMethodOrder(MethodOrderer.MethodName.class)
class WaybillEndpointIntegrationTests {

	private static ConsoleTestApp app;

	private static Http http;

	@BeforeAll
	static void start() {
		app = ConsoleTestApp.start("endpoint", true);
		http = new Http(app.baseUrl() + "/actuator/waybill");
	}

	@AfterAll
	static void stop() throws Exception {
		if (app != null) {
			app.close();
		}
	}

	@BeforeEach
	void reset() throws Exception {
		app.reset();
	}

	@Test
	void aStoresDeadScopesAreListedAndRedrivenInThatStoreOnly(CapturedOutput output) throws Exception {
		// A type of its own: another test binds a queue to Unroutable's exchange.
		app.publishTo(ConsoleTestApp.TENANT, new TenantUnroutable("a tenant's, to nowhere"));
		await().until(() -> app.tenantDeadScopes().size() == 1);
		UUID scope = app.tenantDeadScopes().get(0);

		JsonNode overview = http.get("?store=tenant").json();
		assertThat(overview.get("stores").toString()).isEqualTo("[\"default\",\"tenant\"]");
		assertThat(overview.get("store").asString()).isEqualTo("tenant");
		assertThat(overview.get("outbox").get("deadScopes").asLong()).isEqualTo(1);
		assertThat(http.get("").json().get("outbox").get("deadScopes").asLong()).as("the default store's").isZero();
		assertThat(http.get("/scopes?status=dead&store=tenant").json().get("scopes").get(0).get("id").asString())
			.isEqualTo(scope.toString());
		assertThat(http.get("/scopes?status=dead").json().get("total").asLong()).isZero();
		assertThat(http.get("/scopes/" + scope + "?store=tenant").status()).isEqualTo(200);
		assertThat(http.get("/scopes/" + scope).status()).as("not the default store's").isEqualTo(404);

		JsonNode elsewhere = http.post("/scopes/redrive", "{\"ids\": \"" + scope + "\"}").json();
		assertThat(elsewhere.get("affected").asInt()).as("an action in the default store leaves the tenant's").isZero();
		assertThat(app.tenantDeadScopes()).containsExactly(scope);
		app.bindQueueTo(ConsoleTestApp.TENANT_UNROUTABLE_TYPE);
		JsonNode redriven = http.post("/scopes/redrive", "{\"ids\": \"" + scope + "\", \"store\": \"tenant\"}").json();
		assertThat(redriven.get("affected").asInt()).isEqualTo(1);
		assertThat(output.getOut()).contains("store 'tenant': dead scopes [" + scope + "]");
		await().until(() -> app.tenantDeadScopes().isEmpty());

		Http.Response unknown = http.get("/scopes?status=dead&store=nope");
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.json().get("error").asString()).contains("No store 'nope' is registered");
	}

	@Test
	void aMessageHandledInAStoreIsLookedUpInThatStoresInbox() throws Exception {
		ConsoleTestApp.failing.set(false);
		UUID id = app.publishTo(ConsoleTestApp.TENANT, new Order("o-tenant", "pay"));
		await().until(() -> {
			JsonNode entries = http.get("/messages/" + id + "?store=tenant").json();
			return entries.size() == 1 && "processed".equals(entries.get(0).get("state").asString());
		});
		assertThat(http.get("/messages/" + id).json()).as("not in the default store's inbox").isEmpty();
		Http.Response unknown = http.get("/messages/" + id + "?store=nope");
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.json().get("error").asString()).contains("No store 'nope' is registered");
		ConsoleTestApp.handled.clear();
	}

	@Test
	void aDeadScopeIsListedWithItsErrorLookedIntoAndDeletedWithAnAuditLine(CapturedOutput output) throws Exception {
		UUID messageId = app.publish(new Unroutable("to nowhere"));
		await().until(() -> app.deadScopes().size() == 1);
		UUID scope = app.deadScopes().get(0);

		JsonNode overview = http.get("").json();
		assertThat(overview.get("writeEnabled").asBoolean()).isTrue();
		assertThat(overview.get("outbox").get("deadScopes").asLong()).isEqualTo(1);

		JsonNode page = http.get("/scopes?status=dead").json();
		assertThat(page.get("total").asLong()).isEqualTo(1);
		JsonNode listed = page.get("scopes").get(0);
		assertThat(listed.get("id").asString()).isEqualTo(scope.toString());
		assertThat(listed.get("status").asString()).isEqualTo("DEAD");
		assertThat(listed.get("attempts").asInt()).isEqualTo(1);
		assertThat(listed.get("destinations").get(0).asString()).isEqualTo(ConsoleTestApp.UNROUTABLE_TYPE);
		assertThat(listed.get("messageTypes").get(0).asString()).isEqualTo(ConsoleTestApp.UNROUTABLE_TYPE);
		assertThat(listed.get("lastError").asString()).contains("unroutable");
		assertThat(http.get("/scopes?status=dead&destination=elsewhere").json().get("total").asLong()).isZero();
		assertThat(http.get("/scopes?status=pending").json().get("total").asLong()).isZero();

		JsonNode details = http.get("/scopes/" + scope + "?previewBytes=8").json();
		JsonNode message = details.get("messages").get(0);
		assertThat(message.get("messageId").asString()).isEqualTo(messageId.toString());
		assertThat(message.get("bodyPreview").asString()).isEqualTo("{\"note\":");
		assertThat(message.get("bodyTruncated").asBoolean()).isTrue();
		assertThat(http.get("/scopes/" + UUID.randomUUID()).status()).isEqualTo(404);
		assertThat(http.get("/scopes?status=published").status()).isEqualTo(400);

		Http.Response deleted = http.post("/scopes/delete", "{\"ids\": \"" + scope + "\"}");
		assertThat(deleted.status()).isEqualTo(200);
		assertThat(deleted.json().get("affected").asInt()).isEqualTo(1);
		assertThat(app.deadScopes()).isEmpty();
		assertThat(output.getOut()).contains("Waybill admin action 'outbox.delete' by 'anonymous'")
			.contains(scope.toString());
		assertThat(actions("outbox.delete")).isEqualTo(1.0);
	}

	@Test
	void aMessagePublishedForLaterIsPendingButNotLate() throws Exception {
		// A browser probe saw the page's "Lag" card climb while only a scheduled message waited.
		TransactionTemplate transaction = new TransactionTemplate(app.bean(PlatformTransactionManager.class));
		transaction.executeWithoutResult((status) -> app.bean(OutboxPublisher.class)
			.publish(new Unroutable("tomorrow"), (options) -> options.notBefore(Instant.now().plus(Duration.ofDays(1)))));
		JsonNode outbox = await().until(() -> http.get("").json().get("outbox"),
				(reading) -> reading.get("lagMillis").asLong() >= 1_000);

		assertThat(outbox.get("pendingScopes").asLong()).isEqualTo(1);
		assertThat(outbox.get("dueScopes").asLong()).isZero();
		assertThat(outbox.get("lagMillis").asLong()).as("its age").isGreaterThanOrEqualTo(1_000);
		assertThat(outbox.get("oldestDueForMillis").asLong()).as("nothing late").isZero();
	}

	@Test
	void aDeadScopeIsRedrivenAndPublished() throws Exception {
		app.publish(new Unroutable("second chance"));
		await().until(() -> app.deadScopes().size() == 1);
		UUID scope = app.deadScopes().get(0);
		String catchAll = app.bindQueueToUnroutable();

		Http.Response redriven = http.post("/scopes/redrive", "{\"ids\": \"" + scope + "\"}");

		assertThat(redriven.json().get("affected").asInt()).isEqualTo(1);
		await().until(() -> app.depth(catchAll) == 1);
		assertThat(app.deadScopes()).isEmpty();
		assertThat(actions("outbox.redrive")).isGreaterThanOrEqualTo(1.0);
	}

	@Test
	void anErrorQueueMessageIsPeekedWithoutLossThenRedrivenThroughTheOutboxAndHandledAsNewWork(CapturedOutput output)
			throws Exception {
		ConsoleTestApp.failing.set(true);
		UUID id = app.publish(new Order("o-1", "pay"));
		await().until(() -> app.depth(app.errorQueue()) == 1);

		JsonNode queues = http.get("/error-queues").json();
		assertThat(queues.get(0).get("queue").asString()).isEqualTo(app.queue);
		assertThat(queues.get(0).get("depth").asLong()).isEqualTo(1);
		JsonNode peeked = http.get("/error-queues/" + app.queue).json();
		assertThat(peeked).hasSize(1);
		assertThat(peeked.get(0).get("messageId").asString()).isEqualTo(id.toString());
		assertThat(peeked.get(0).get("faultMessage").asString()).isEqualTo("card declined for order o-1");
		assertThat(peeked.get(0).get("faultExceptionType").asString()).isEqualTo(IllegalStateException.class.getName());
		assertThat(peeked.get(0).get("bodyPreview").asString()).contains("\"o-1\"");
		assertThat(app.depth(app.errorQueue())).as("peeking loses nothing").isEqualTo(1);
		assertThat(http.get("/error-queues/" + app.queue).json()).as("peeking again").hasSize(1);
		JsonNode faulted = http.get("/messages/" + id).json();
		assertThat(faulted.get(0).get("consumerId").asString()).isEqualTo(app.queue);
		assertThat(faulted.get(0).get("state").asString()).isEqualTo("faulted");

		ConsoleTestApp.failing.set(false);
		Http.Response redriven = http.post("/error-queues/redrive",
				"{\"queue\": \"" + app.queue + "\", \"ids\": \"" + id + "\"}");

		assertThat(redriven.json().get("messages").get(0).asString()).isEqualTo(id.toString());
		await().until(() -> "processed".equals(http.get("/messages/" + id).json().get(0).get("state").asString()));
		assertThat(ConsoleTestApp.handled).containsExactly(id.toString(), id.toString());
		assertThat(app.depth(app.errorQueue())).isZero();
		assertThat(output.getOut()).contains("Waybill admin action 'error-queue.redrive' by 'anonymous'");
		assertThat(actions("error-queue.redrive")).isEqualTo(1.0);
		ConsoleTestApp.handled.clear();
	}

	@Test
	void anErrorQueueMessageIsDiscardedWithAnAuditLineAndTheOthersStay(CapturedOutput output) throws Exception {
		ConsoleTestApp.failing.set(true);
		UUID first = app.publish(new Order("o-2", "pay"));
		UUID second = app.publish(new Order("o-3", "pay"));
		await().until(() -> app.depth(app.errorQueue()) == 2);

		Http.Response discarded = http.post("/error-queues/discard",
				"{\"queue\": \"" + app.queue + "\", \"ids\": \"" + second + "\"}");

		assertThat(discarded.json().get("messages").get(0).asString()).isEqualTo(second.toString());
		assertThat(app.depth(app.errorQueue())).isEqualTo(1);
		JsonNode left = http.get("/error-queues/" + app.queue).json();
		assertThat(left).hasSize(1);
		assertThat(left.get(0).get("messageId").asString()).isEqualTo(first.toString());
		assertThat(output.getOut()).contains("Waybill admin action 'error-queue.discard' by 'anonymous'")
			.contains(second.toString()).contains("card declined for order o-3");
		assertThat(actions("error-queue.discard")).isEqualTo(1.0);
		// leave the queue empty for the next test
		http.post("/error-queues/discard", "{\"queue\": \"" + app.queue + "\", \"ids\": \"" + first + "\"}");
		assertThat(app.depth(app.errorQueue())).isZero();
	}

	@Test
	void badRequestsAreRefusedWith400() throws Exception {
		assertThat(http.get("/nonsense").status()).isEqualTo(400);
		assertThat(http.get("/messages/not-a-uuid").status()).isEqualTo(400);
		assertThat(http.get("/error-queues/no-such-queue").status()).isEqualTo(400);
		assertThat(http.get("/error-queues/" + app.queue + "?max=abc").status()).isEqualTo(400);
		assertThat(http.post("/scopes/explode", "{\"ids\": \"\"}").status()).isEqualTo(400);
		assertThat(http.post("/error-queues/discard", "{\"queue\": \"" + app.queue + "\"}").status()).isEqualTo(400);
	}

	@Test
	void aBadRequestsAnswerSaysWhatIsWrongForReadsAndWrites() throws Exception {
		assertReason(http.get("/nonsense"), "Unknown section 'nonsense'");
		assertReason(http.get("/messages/not-a-uuid"), "'not-a-uuid' is not a UUID");
		assertReason(http.get("/scopes/not-a-uuid"), "'not-a-uuid' is not a UUID");
		assertReason(http.get("/error-queues/no-such-queue"), "No consumer endpoint has the queue 'no-such-queue'");
		assertReason(http.get("/scopes?status=published"), "Unknown scope status 'published'");
		assertReason(http.get("/error-queues/" + app.queue + "?max=500"), "max must be 1 to 100");
		assertReason(http.get("/error-queues/" + app.queue + "?max=abc"), "max must be a whole number, not 'abc'");
		assertReason(http.get("/scopes?limit=1e3"), "limit must be a whole number, not '1e3'");
		assertReason(http.get("/scopes/" + UUID.randomUUID() + "?previewBytes=99999999999"),
				"previewBytes is out of range: '99999999999'");
		assertReason(http.post("/scopes/explode", "{\"ids\": \"\"}"), "Unknown change 'scopes/explode'");
		assertReason(http.post("/scopes/redrive", "{\"ids\": \"nope\"}"), "'nope' is not a UUID");
		assertReason(http.post("/error-queues/discard", "{\"queue\": \"" + app.queue + "\"}"),
				"The body must name the queue and the ids");
		assertReason(http.post("/error-queues/redrive", "{\"queue\": \"no-such-queue\", \"ids\": \"x\"}"),
				"No consumer endpoint has the queue 'no-such-queue'");
	}

	@Test
	void takingAnErrorQueueMessageAnotherReaderHoldsStillTakesItAndNamesAnIdNotFound() throws Exception {
		ConsoleTestApp.failing.set(true);
		UUID id = app.publish(new Order("o-5", "pay"));
		await().until(() -> app.depth(app.errorQueue()) == 1);
		UUID gone = UUID.randomUUID();
		Http.Response discarded;
		// A second operator's page peeks the error queue (basic.get, then nack requeue) as the discard runs.
		try (Connection connection = TestRabbit.get().connect(); Channel other = connection.createChannel()) {
			long tag = other.basicGet(app.errorQueue(), false).getEnvelope().getDeliveryTag();
			Thread putBack = new Thread(() -> {
				try {
					Thread.sleep(400);
					other.basicNack(tag, false, true);
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			putBack.start();
			discarded = http.post("/error-queues/discard",
					"{\"queue\": \"" + app.queue + "\", \"ids\": \"" + id + "," + gone + "\"}");
			putBack.join();
		}

		assertThat(discarded.status()).isEqualTo(200);
		JsonNode result = discarded.json();
		assertThat(result.get("requested").asInt()).isEqualTo(2);
		assertThat(result.get("messages")).extracting(JsonNode::asString).containsExactly(id.toString());
		assertThat(result.get("notFound")).extracting(JsonNode::asString).containsExactly(gone.toString());
		assertThat(app.depth(app.errorQueue())).isZero();
	}

	private static void assertReason(Http.Response response, String reason) {
		assertThat(response.status()).as(response.body()).isEqualTo(400);
		assertThat(response.json().get("error").asString()).as(response.body()).contains(reason);
		assertThat(response.body()).doesNotContain("trace").doesNotContain("exception").doesNotContain("Exception");
	}

	@Test
	void thePageIsServedAndWaybillRedirectsToItWithTheEndpoint() throws Exception {
		Http page = new Http(app.baseUrl());
		Http.Response index = page.get("/waybill/index.html");
		assertThat(index.status()).isEqualTo(200);
		assertThat(index.body()).contains("<title>Waybill console</title>");
		assertThat(page.get("/waybill/console.js").body()).contains("textContent");
		java.net.http.HttpResponse<Void> redirect = java.net.http.HttpClient.newHttpClient()
			.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.baseUrl() + "/waybill")).build(),
					java.net.http.HttpResponse.BodyHandlers.discarding());
		assertThat(redirect.statusCode()).isEqualTo(302);
		assertThat(redirect.headers().firstValue("Location").orElseThrow())
			.endsWith("/waybill/index.html?endpoint=/actuator/waybill");
	}

	private static double actions(String action) {
		MeterRegistry registry = app.bean(MeterRegistry.class);
		// The meter's documented name: operators' dashboards query it by that name.
		var counter = registry.find("waybill.admin.actions").tag("action", action).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100));
	}


}
