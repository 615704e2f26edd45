package dev.waybill.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Delivery;
import jakarta.persistence.EntityManagerFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.hibernate.app.AppTables;
import dev.waybill.outbox.hibernate.app.Order;
import dev.waybill.outbox.hibernate.app.OrderService;
import dev.waybill.outbox.hibernate.autoconfigure.WaybillHibernateAutoConfiguration;
import dev.waybill.outbox.hibernate.jpa.OutboxStateEntity;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * End to end: an entity's events, written by the Hibernate flush, are delivered by the relay,
 * in order, and the scope is marked published. With non-default schema and table names, which
 * the JPA mappings follow ({@code ddl-auto=validate}).
 */
class HibernateRelayIntegrationTests {

	@Test
	void entityEventsReachTheTransportThroughTheRelay() {
		try (TestSchema schema = TestSchema.create("hibernate_relay"); FakeTransport broker = new FakeTransport()) {
			service(schema).withBean(FakeTransport.class, () -> broker).run((context) -> {
				assertThat(context).hasNotFailed();
				Order order = context.getBean(OrderService.class).place("kim", "leave at the door");

				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(broker.delivered())
					.extracting(OutboxMessage::messageType)
					.containsExactly("test.order-placed", "test.order-noted"));
				assertThat(new String(broker.delivered().get(0).body(), StandardCharsets.UTF_8))
					.contains(order.id().toString());
				awaitPublishedScope(context, schema);
			});
		}
	}

	@Test
	void unkeyedMessagesGoToThisInstancesRelayRightAfterTheCommitWithoutAClaim() {
		List<String> leaseOwners = new CopyOnWriteArrayList<>();
		RelayListener owners = new RelayListener() {
			@Override
			public void published(ClaimedScope scope, Instant confirmedAt) {
				leaseOwners.add(scope.leaseOwner());
			}
		};
		try (TestSchema schema = TestSchema.create("hibernate_direct"); FakeTransport broker = new FakeTransport()) {
			// Neither a poll nor a lease could deliver in time: only the hand-over after the commit,
			// which runs after Hibernate's own before-completion write of the scope.
			service(schema).withBean(FakeTransport.class, () -> broker)
				.withBean(RelayListener.class, () -> owners)
				.withPropertyValues("waybill.outbox.relay.poll-interval=60s", "waybill.outbox.relay.lease-duration=60s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Awaitility.await().pollDelay(Duration.ofMillis(300)).until(() -> true); // the relay's first poll
					// Entity events are keyed by their entity (claimed in order); this message is not.
					context.getBean(OrderService.class).audit("checked");

					await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(broker.delivered())
						.extracting(OutboxMessage::messageType)
						.containsExactly("test.audit"));
					awaitPublishedScope(context, schema);
					assertThat(leaseOwners).singleElement().asString().endsWith("/direct");
				});
		}
	}

	@Test
	void entityEventsArriveOnRabbitMq() throws Exception {
		TestRabbit rabbit = TestRabbit.get();
		try (TestSchema schema = TestSchema.create("hibernate_rabbit");
				TestTopology topology = rabbit.topology("hibernate-rabbit")) {
			// The exchanges the transport declares for these message types, both bound to one queue
			// before the first publish (nothing is returned as unroutable, and the queue shows the
			// order the relay published in).
			BoundQueue events = bindToMessageTypeExchange(topology, "test.order-placed");
			topology.channel().exchangeDeclare("test.order-noted", BuiltinExchangeType.FANOUT, true);
			topology.deleteLater("test.order-noted");
			topology.channel().queueBind(events.name(), "test.order-noted", "");
			service(schema)
				.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class))
				.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
						"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password())
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Order order = context.getBean(OrderService.class).place("kim", "leave at the door");

					List<Delivery> deliveries = events.next(2);
					assertThat(deliveries).extracting((delivery) -> delivery.getProperties().getType())
						.containsExactly("test.order-placed", "test.order-noted");
					assertThat(new String(deliveries.get(0).getBody(), StandardCharsets.UTF_8))
						.contains(order.id().toString());
					awaitPublishedScope(context, schema);
				});
		}
	}

	private static BoundQueue bindToMessageTypeExchange(TestTopology topology, String messageType) throws Exception {
		topology.channel().exchangeDeclare(messageType, BuiltinExchangeType.FANOUT, true);
		topology.deleteLater(messageType);
		return topology.bind(messageType, "");
	}

	private static ApplicationContextRunner service(TestSchema schema) {
		AppTables.create(schema);
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(HibernateJpaAutoConfiguration.class,
					TransactionManagerCustomizationAutoConfiguration.class, DataJpaRepositoriesAutoConfiguration.class,
					WaybillHibernateAutoConfiguration.class))
			.withUserConfiguration(Application.class)
			.withPropertyValues("spring.jpa.hibernate.ddl-auto=validate",
					"spring.jpa.properties.hibernate.default_schema=" + schema.name(),
					"waybill.tables.outbox-state=scopes", "waybill.tables.outbox-message=messages",
					"waybill.tables.inbox-state=received", "waybill.outbox.relay.poll-interval=200ms");
	}

	private static void awaitPublishedScope(AssertableApplicationContext context, TestSchema schema) {
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(new JdbcTemplate(schema.dataSource())
				.queryForObject("SELECT status FROM " + schema.name() + ".scopes", String.class)).isEqualTo("published"));
		// The JPA mapping, following the non-default table names, reads the same scope.
		UUID scopeId = context.getBean(EntityManagerFactory.class)
			.createEntityManager()
			.createQuery("select s.id from WaybillOutboxState s where s.status = 'published'", UUID.class)
			.getSingleResult();
		assertThat(scopeId).isNotNull();
	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = { Order.class, OutboxStateEntity.class })
	@EnableJpaRepositories(basePackageClasses = Order.class)
	@Import(OrderService.class)
	static class Application {

	}

}
