package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

	private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test";

	private static final String QUEUE = "billing.charges";

	private static final Pattern PLACED = Pattern.compile("placed ([0-9a-f-]{36})");

	private static final List<String> NOT_IN_THE_PAGES_BUILD = List.of(
			"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
			"org.springframework.boot.hibernate.autoconfigure.metrics.HibernateMetricsAutoConfiguration",
			"org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
			"dev.waybill.outbox.hibernate.autoconfigure.WaybillHibernateAutoConfiguration",
			"dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration",
			"dev.waybill.schedules.autoconfigure.WaybillSchedulesAutoConfiguration",
			"dev.waybill.replay.autoconfigure.WaybillReplayAutoConfiguration",
			"dev.waybill.console.autoconfigure.WaybillConsoleAutoConfiguration");

	@Test
	void theApplicationPlacesAnOrderAndItsHandlerRecordsThePayment(CapturedOutput output) throws Exception {
		String schema = "getting_started_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		execute("CREATE SCHEMA " + schema);
		// Arguments, as with spring-boot:run, so they win over the page's application.yml.
		try (ConfigurableApplicationContext application = new SpringApplicationBuilder(GettingStartedApplication.class)
			.run("--spring.datasource.url=" + DATABASE + "?currentSchema=" + schema, "--waybill.schema=" + schema,
					"--spring.autoconfigure.exclude=" + String.join(",", NOT_IN_THE_PAGES_BUILD))) {
			Matcher placed = PLACED.matcher(output.getOut());
			assertThat(placed.find()).as("the runner prints the order id").isTrue();
			UUID order = UUID.fromString(placed.group(1));
			// Read with a connection of the test's own, so the application's tables are the schema's.
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
					query("SELECT cents FROM " + schema + ".payments WHERE order_id = '" + order + "'")).containsExactly("1250"));
			assertThat(query("SELECT status FROM " + schema + ".outbox_state")).containsExactly("published");
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
					query("SELECT consumer_id FROM " + schema + ".inbox_state WHERE processed_at IS NOT NULL"))
				.containsExactly(QUEUE));
		}
		finally {
			execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
			deleteQueues();
		}
	}

	private static List<String> query(String sql) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (Connection connection = DriverManager.getConnection(DATABASE, "postgres", "");
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				rows.add(result.getString(1));
			}
		}
		return rows;
	}

	private static void execute(String sql) throws SQLException {
		try (Connection connection = DriverManager.getConnection(DATABASE, "postgres", "");
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
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
