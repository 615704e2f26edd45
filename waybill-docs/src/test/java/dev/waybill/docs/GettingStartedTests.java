package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import org.springframework.jdbc.core.JdbcTemplate;

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
		try (ConfigurableApplicationContext application = new SpringApplicationBuilder(GettingStartedApplication.class)
			.properties(Map.of("spring.datasource.url", DATABASE + "?currentSchema=" + schema, "waybill.schema", schema,
					"spring.autoconfigure.exclude", String.join(",", NOT_IN_THE_PAGES_BUILD)))
			.run()) {
			Matcher placed = PLACED.matcher(output.getOut());
			assertThat(placed.find()).as("the runner prints the order id").isTrue();
			UUID order = UUID.fromString(placed.group(1));
			JdbcTemplate jdbc = application.getBean(JdbcTemplate.class);
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(jdbc.queryForList("SELECT cents FROM payments WHERE order_id = ?",
						Long.class, order)).containsExactly(1250L));
			assertThat(jdbc.queryForList("SELECT status FROM " + schema + ".outbox_state", String.class))
				.containsExactly("published");
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(jdbc.queryForList(
					"SELECT consumer_id FROM " + schema + ".inbox_state WHERE processed_at IS NOT NULL", String.class))
				.containsExactly(QUEUE));
		}
		finally {
			execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
			deleteQueues();
		}
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
