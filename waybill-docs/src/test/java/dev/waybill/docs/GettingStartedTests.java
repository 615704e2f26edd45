package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.waybill.docs.snippets.gettingstarted.GettingStartedApplication;

/**
 * Runs the application docs/getting-started.md builds, from the sources and the
 * {@code application.yml} and {@code schema.sql} the page shows (see {@link SnippetsTests}), as
 * {@code mvn spring-boot:run} would: its runner places an order at start-up and prints its id, and
 * a moment later the handler's payment row exists, the outbox scope is published and the inbox row
 * processed by the page's queue. Only the environment differs from the page: the database (this
 * build's {@code test} database, and a schema of its own for the business and Waybill's tables),
 * and the Waybill modules and JPA this module has on its class path and the page's build does not,
 * which are left out.
 */
@ExtendWith(OutputCaptureExtension.class)
class GettingStartedTests {

	private static final String QUEUE = "billing.charges";

	private static final Pattern PLACED = Pattern.compile("placed ([0-9a-f-]{36})");

	@Test
	void theApplicationPlacesAnOrderAndItsHandlerRecordsThePayment(CapturedOutput output) throws Exception {
		String schema = LocalServices.createSchema("getting_started");
		// Arguments, as with spring-boot:run, so they win over the page's application.yml.
		try (ConfigurableApplicationContext application = new SpringApplicationBuilder(GettingStartedApplication.class)
			.run("--spring.datasource.url=" + LocalServices.DATABASE + "?currentSchema=" + schema, "--waybill.schema=" + schema,
					"--spring.autoconfigure.exclude=" + String.join(",", LocalServices.NOT_IN_A_PAGES_BUILD))) {
			Matcher placed = PLACED.matcher(output.getOut());
			assertThat(placed.find()).as("the runner prints the order id").isTrue();
			UUID order = UUID.fromString(placed.group(1));
			// Read with a connection of the test's own, so the application's tables are the schema's.
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
					LocalServices.query("SELECT cents FROM " + schema + ".payments WHERE order_id = '" + order + "'")).containsExactly("1250"));
			assertThat(LocalServices.query("SELECT status FROM " + schema + ".outbox_state")).containsExactly("published");
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
					LocalServices.query("SELECT consumer_id FROM " + schema + ".inbox_state WHERE processed_at IS NOT NULL"))
				.containsExactly(QUEUE));
		}
		finally {
			LocalServices.dropSchema(schema);
			deleteQueues();
		}
	}

	/** The page's queues are named for the page, not for one run: left behind, the next run would find them. */
	private static void deleteQueues() throws Exception {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost("127.0.0.1");
		try (com.rabbitmq.client.Connection connection = factory.newConnection();
				Channel channel = connection.createChannel()) {
			channel.queueDelete(QUEUE);
			channel.queueDelete(QUEUE + "_error");
		}
	}

}
