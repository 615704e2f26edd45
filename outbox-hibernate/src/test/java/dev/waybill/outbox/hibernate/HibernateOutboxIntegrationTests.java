package dev.waybill.outbox.hibernate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;

import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.orm.jpa.hibernate.HibernateTransactionManager;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.ScheduledMessage;
import dev.waybill.outbox.hibernate.app.AppTables;
import dev.waybill.outbox.hibernate.app.Events;
import dev.waybill.outbox.hibernate.app.Order;
import dev.waybill.outbox.hibernate.app.OrderRepository;
import dev.waybill.outbox.hibernate.app.OrderService;
import dev.waybill.outbox.hibernate.app.TestApplication;
import dev.waybill.outbox.hibernate.internal.HibernateOutbox;
import dev.waybill.outbox.hibernate.jpa.OutboxMessageEntity;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Entity events and published messages of a Spring Boot + Spring Data JPA application, written
 * by the Hibernate session of the business transaction. Waybill's tables come from its Liquibase
 * changelog and Hibernate validates every mapping against them ({@code ddl-auto=validate}).
 */
@SpringBootTest(classes = { TestApplication.class, HibernateOutboxIntegrationTests.Counting.class })
@DirtiesContext
class HibernateOutboxIntegrationTests {

	private static TestSchema schema;

	private static final StatementLog statements = new StatementLog();

	@Autowired
	private OrderService service;

	@Autowired
	private EntityManagerFactory entityManagerFactory;

	@Autowired
	private OutboxWriter writer;

	@Autowired
	private OutboxPublisher publisher;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Autowired
	private OrderRepository orders;

	@Autowired
	private OutboxMessageFactory messages;

	private JdbcTemplate jdbc;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		schema = TestSchema.create("hibernate_outbox");
		AppTables.create(schema);
		TestPostgres postgres = TestPostgres.get();
		registry.add("spring.datasource.url", postgres::url);
		registry.add("spring.datasource.username", postgres::user);
		registry.add("spring.datasource.password", postgres::password);
		registry.add("waybill.schema", schema::name);
		registry.add("spring.jpa.properties.hibernate.default_schema", schema::name);
		registry.add("spring.jpa.hibernate.ddl-auto", () -> "validate");
		registry.add("spring.jpa.open-in-view", () -> "false");
		registry.add("spring.jpa.properties.hibernate.jdbc.batch_size", () -> "50");
		registry.add("spring.jpa.properties.hibernate.order_inserts", () -> "true");
		// The rows are what is tested here; no relay (outbox-rabbit is on the test class path for
		// HibernateRelayIntegrationTests and would otherwise publish them to the local broker).
		registry.add("waybill.outbox.relay.enabled", () -> "false");
		// Lets a flush run outside a transaction, to show the outbox refuses it.
		registry.add("spring.jpa.properties.hibernate.allow_update_outside_transaction", () -> "true");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@BeforeEach
	void clean() {
		this.jdbc = new JdbcTemplate(schema.dataSource());
		this.jdbc.update("DELETE FROM " + schema.name() + ".outbox_state");
		this.jdbc.update("DELETE FROM " + schema.name() + ".orders");
		this.jdbc.update("DELETE FROM " + schema.name() + ".parcels");
	}

	@Test
	void writerIsTheHibernateOutbox() {
		assertThat(this.writer).isInstanceOf(HibernateOutbox.class);
	}

	@Test
	void entitySavedWithTwoEventsWritesOneScopeWithBothInOrder() {
		Order order = this.service.place("ada", "gift wrap");

		assertThat(scopes()).hasSize(1);
		assertThat(messageTypes()).containsExactly("test.order-placed", "test.order-noted");
		assertThat(bodies().get(0)).contains(order.id().toString()).contains("1200");
		assertThat(bodies().get(1)).contains("gift wrap");
		assertThat(this.jdbc.queryForObject("SELECT message_count FROM " + schema.name() + ".outbox_state",
				Integer.class)).isEqualTo(2);
		assertThat(order.pendingOutboxEvents()).isEmpty();
	}

	@Test
	void eventsOfARolledBackTransactionAreNotWrittenByTheNextCommitOfTheSameSession() {
		// An EntityManager bound across several transactions, as open-session-in-view binds it
		// for a web request (spring.jpa.open-in-view, on by default in web applications).
		EntityManager shared = this.entityManagerFactory.createEntityManager();
		TransactionSynchronizationManager.bindResource(this.entityManagerFactory, new EntityManagerHolder(shared));
		try {
			TransactionTemplate transaction = new TransactionTemplate(this.transactionManager);
			assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
				this.orders.saveAndFlush(Order.place("rolled-back", 1)); // its event is collected by the flush
				throw new IllegalStateException("payment declined");
			})).hasMessage("payment declined");

			this.service.audit("committed"); // the same session's next transaction commits

			assertThat(count("orders")).isZero();
			assertThat(messageTypes()).containsExactly("test.audit");
		}
		finally {
			TransactionSynchronizationManager.unbindResource(this.entityManagerFactory);
			shared.close();
		}
	}

	@Test
	void anEventThatCannotBePublishedNamesItsEntityAndRollsTheTransactionBack() {
		// Thrown at the flush, far from registerEvent: a JPA user trial found the entity unnamed.
		TransactionTemplate transaction = new TransactionTemplate(this.transactionManager);
		Throwable thrown = catchThrowable(() -> transaction.executeWithoutResult((status) -> {
			Order order = this.orders.save(Order.place("carol", 5));
			order.note("x".repeat(1_100_000)); // over waybill.outbox.max-message-bytes (1 MiB)
			this.orders.flush();
		}));

		InvalidMessageException invalid = findCause(thrown, InvalidMessageException.class);
		assertThat(invalid.getMessage()).startsWith("Cannot publish message of type 'test.order-noted': ")
			.contains("waybill.outbox.max-message-bytes")
			.contains("(an outbox event of entity " + Order.class.getName() + "#");
		assertThat(count("orders")).isZero();
		assertThat(scopes()).isEmpty();
	}

	private static <T extends Throwable> T findCause(Throwable thrown, Class<T> type) {
		for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + thrown, thrown);
	}

	@Test
	void rollbackWritesNoScopeAndNoEntity() {
		assertThatThrownBy(() -> this.service.placeThenFail("bob")).hasMessage("payment declined");

		assertThat(scopes()).isEmpty();
		assertThat(count("orders")).isZero();
	}

	@Test
	void aFailedOutboxWriteFailsTheCommitAndKeepsNoEntity() {
		// The outbox statement runs after the final flush, in Hibernate's before-completion
		// callback: when it fails, the business rows must not commit without their messages.
		String constraint = "ALTER TABLE " + schema.name() + ".outbox_message ADD CONSTRAINT refuse_all CHECK (false) NOT VALID";
		this.jdbc.execute(constraint);
		try {
			assertThatThrownBy(() -> this.service.place("eve", "no outbox, no order"))
				.hasStackTraceContaining("refuse_all");
		}
		finally {
			this.jdbc.execute("ALTER TABLE " + schema.name() + ".outbox_message DROP CONSTRAINT refuse_all");
		}
		assertThat(count("orders")).isZero();
		assertThat(scopes()).isEmpty();
	}

	@Test
	void eventOfAManagedEntityFlushedOnlyAtCommitIsWritten() {
		Order order = this.service.place("cy", "n");
		clean();
		this.jdbc.update("INSERT INTO " + schema.name() + ".orders (id, customer, total_cents, status, version) "
				+ "VALUES (?, 'cy', 1, 'PLACED', 0)", order.id());

		this.service.ship(order.id()); // @Transactional, no save(): Hibernate flushes at commit

		assertThat(scopes()).hasSize(1);
		assertThat(messageTypes()).containsExactly("test.order-shipped");
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + schema.name() + ".orders", String.class))
			.isEqualTo("SHIPPED");
	}

	@Test
	void eventOfADeletedEntityIsWritten() {
		Order order = this.service.place("dee", "n");
		this.jdbc.update("DELETE FROM " + schema.name() + ".outbox_state");

		this.service.cancel(order.id());

		assertThat(count("orders")).isZero();
		assertThat(messageTypes()).containsExactly("test.order-cancelled");
	}

	@Test
	void flushingSeveralTimesWritesEachEventOnce() {
		this.service.placeFlushingTwice("eve");

		assertThat(scopes()).hasSize(1);
		assertThat(messageTypes()).containsExactly("test.order-placed", "test.order-noted");
	}

	@Test
	void publishedMessagesAndEntityEventsAreOneScopePerOrderingKey() {
		Order order = this.service.placeBetweenPublishes("fay");

		// The entity's events have its ordering key, the unkeyed messages are a scope of their own.
		assertThat(scopes()).hasSize(2);
		// Entity events (in flush order) come first, then OutboxPublisher messages (in publish order).
		assertThat(messageTypes()).containsExactly("test.order-placed", "test.audit", "test.audit");
		assertThat(bodies().get(1)).contains("before");
		assertThat(bodies().get(2)).contains("after");
		assertThat(this.jdbc.queryForList("SELECT ordering_key FROM " + schema.name() + ".outbox_state "
				+ "ORDER BY ordering_key NULLS LAST", String.class))
			.containsExactly(Order.class.getName() + "#" + order.id(), null);
	}

	@Test
	void entityEventsAreOrderedByTheEntityTypeAndIdByDefault() {
		Order order = this.service.place("kai", "n");
		this.service.ship(order.id());

		String key = Order.class.getName() + "#" + order.id();
		assertThat(this.jdbc.queryForList("SELECT ordering_key FROM " + schema.name() + ".outbox_state ORDER BY "
				+ "ordering_seq", String.class)).containsExactly(key, key);
		assertThat(this.jdbc.queryForList("SELECT headers->>'waybill-ordering-key' FROM " + schema.name()
				+ ".outbox_message ORDER BY sequence_number", String.class)).hasSize(3).containsOnly(key);
		assertThat(this.jdbc.queryForList("SELECT ordering_held FROM " + schema.name() + ".outbox_state ORDER BY "
				+ "ordering_seq", Boolean.class)).as("the second waits for the first").containsExactly(false, true);
	}

	@Test
	void anEntityCanChooseItsEventsOrderingKey() {
		this.service.label("fragile");

		assertThat(this.jdbc.queryForObject("SELECT ordering_key FROM " + schema.name() + ".outbox_state",
				String.class)).isEqualTo("label:fragile");
	}

	@Test
	void aScheduledMessageIsWrittenAsAScopeOfItsOwnAndCancelledInAJpaTransaction() {
		TransactionTemplate transactions = new TransactionTemplate(this.transactionManager);
		Instant later = Instant.now().plus(Duration.ofHours(1));
		ScheduledMessage scheduled = transactions.execute((status) -> {
			this.service.place("hal", "n"); // joins: the entity's events and the publish share a scope
			return this.publisher.schedule(new Reminder("pay"), later);
		});

		assertThat(scopes()).hasSize(2);
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".outbox_state WHERE id = ? "
				+ "AND message_count = 1 AND next_attempt_at > now() + interval '50 minutes'", Integer.class,
				scheduled.scheduleId())).isOne();
		assertThat(Boolean.TRUE.equals(transactions.execute((status) -> this.publisher.cancel(scheduled)))).isTrue();
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + schema.name() + ".outbox_state WHERE id = ?",
				String.class, scheduled.scheduleId())).isEqualTo("cancelled");
	}

	record Reminder(String text) {
	}

	@Test
	void jpaTransactionManagerRefusesANestedTransactionEvenWhenAllowed() {
		// HibernateJpaDialect has no savepoint manager: with Boot's JpaTransactionManager, only
		// HibernateTransactionManager (below) reaches the outbox's savepoint handling.
		TransactionTemplate outer = new TransactionTemplate(this.transactionManager);
		TransactionTemplate nested = new TransactionTemplate(this.transactionManager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		Runnable placeThenNest = () -> outer.executeWithoutResult((status) -> {
			this.orders.saveAndFlush(Order.place("outer", 1));
			nested.executeWithoutResult((savepoint) -> this.orders.saveAndFlush(Order.place("nested", 2)));
		});

		assertThatThrownBy(placeThenNest::run).isInstanceOf(NestedTransactionNotSupportedException.class);
		AbstractPlatformTransactionManager manager = (AbstractPlatformTransactionManager) this.transactionManager;
		manager.setNestedTransactionAllowed(true);
		try {
			assertThatThrownBy(placeThenNest::run).isInstanceOf(NestedTransactionNotSupportedException.class)
				.hasMessageContaining("JpaDialect does not support savepoints");
		}
		finally {
			manager.setNestedTransactionAllowed(false);
		}
		assertThat(count("orders")).isZero();
		assertThat(scopes()).isEmpty();
	}

	@Test
	void eventsANestedTransactionFlushedGoWithItsSavepointWhenItRollsBackAndStayWhenItCommits() {
		// Spring's native HibernateTransactionManager sets JDBC savepoints when nested transactions
		// are allowed; it binds the session under the same factory the outbox looks it up by.
		HibernateTransactionManager manager = new HibernateTransactionManager((SessionFactory) this.entityManagerFactory);
		manager.setNestedTransactionAllowed(true);
		manager.afterPropertiesSet();
		TransactionTemplate outer = new TransactionTemplate(manager);
		TransactionTemplate nested = new TransactionTemplate(manager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);

		outer.executeWithoutResult((status) -> {
			this.orders.saveAndFlush(Order.place("kept-before", 1));
			nested.executeWithoutResult((savepoint) -> {
				this.orders.saveAndFlush(Order.place("rolled-back", 2));
				savepoint.setRollbackOnly(); // rolls back to the savepoint, the outer transaction goes on
			});
			nested.executeWithoutResult((savepoint) -> this.orders.saveAndFlush(Order.place("kept-nested", 3)));
		});

		assertThat(this.jdbc.queryForList("SELECT customer FROM " + schema.name() + ".orders ORDER BY customer",
				String.class)).containsExactly("kept-before", "kept-nested");
		assertThat(this.jdbc.queryForList("SELECT convert_from(body, 'UTF8')::jsonb->>'totalCents' FROM "
				+ schema.name() + ".outbox_message ORDER BY sequence_number", String.class)).containsExactly("1", "3");

		// The nested transaction flushed the transaction's first events: nothing is left.
		clean();
		outer.executeWithoutResult((status) -> nested.executeWithoutResult((savepoint) -> {
			this.orders.saveAndFlush(Order.place("rolled-back", 4));
			savepoint.setRollbackOnly();
		}));
		assertThat(count("orders")).isZero();
		assertThat(scopes()).isEmpty();
	}

	@Test
	void eventsOfADetachedEntitySurviveTheMergeOfSave() {
		Order order = this.service.place("gus", "n");
		this.jdbc.update("DELETE FROM " + schema.name() + ".outbox_state");
		Order detached = this.entityManagerFactory.createEntityManager().find(Order.class, order.id());
		detached.ship();

		this.service.save(detached); // Spring Data merges a detached entity into a new managed copy

		assertThat(messageTypes()).containsExactly("test.order-shipped");
		assertThat(detached.pendingOutboxEvents()).isEmpty();
	}

	@Test
	void entityThatImplementsTheInterfaceRaisesEvents() {
		this.service.label("fragile");

		assertThat(messageTypes()).containsExactly("test.parcel-labelled");
		assertThat(bodies().get(0)).contains("fragile");
	}

	@Test
	void flushOutsideATransactionWithPendingEventsFailsNamingTheEntity() {
		Order order = Order.place("hal", 3);
		EntityManager entityManager = this.entityManagerFactory.createEntityManager();
		try {
			entityManager.persist(order);
			assertThatThrownBy(entityManager::flush).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Entity " + Order.class.getName() + "#" + order.id())
				.hasMessageContaining("outside a transaction");
		}
		finally {
			entityManager.close();
		}
		assertThat(count("orders")).isZero();
		assertThat(scopes()).isEmpty();
	}

	@Test
	void thousandEntitiesAreInsertedInJdbcBatchesAndTheirEventsInOneStatement() {
		statements.start();
		List<UUID> ids;
		try {
			ids = this.service.placeMany(1000);
		}
		finally {
			statements.stop();
		}

		List<StatementLog.Execution> executions = statements.executions();
		List<StatementLog.Execution> orderInserts = executions.stream()
			.filter((e) -> e.touches("insert into") && e.touches(".orders"))
			.toList();
		assertThat(orderInserts).as("order inserts").hasSize(20).allSatisfy((e) -> {
			assertThat(e.method()).isEqualTo("executeBatch");
			assertThat(e.batchedRows()).isEqualTo(50);
		});
		List<StatementLog.Execution> outboxWrites = executions.stream().filter((e) -> e.touches("outbox_message")).toList();
		assertThat(outboxWrites).as("outbox writes").hasSize(1);
		// 20 batches, the ordering keys' locks, the outbox write
		assertThat(executions).as("every round-trip of the transaction").hasSize(22);
		assertThat(statements.connections()).as("connections taken").isEqualTo(1);

		assertThat(scopes()).as("one per entity: each has its own ordering key").hasSize(1000);
		assertThat(count("outbox_message")).isEqualTo(1000);
		assertThat(this.jdbc.queryForList("SELECT convert_from(body, 'UTF8')::jsonb->>'orderId' FROM " + schema.name()
				+ ".outbox_message ORDER BY sequence_number", String.class))
			.containsExactlyElementsOf(ids.stream().map(UUID::toString).toList());
	}

	@Test
	void scopesWrittenSeparatelyInOneJpaTransactionStayScopesOfTheirOwn() {
		// The inbox writes a fault's error queue copy and its Fault event as two scopes, so that an
		// unroutable event never holds back (nor republishes) the copy; a batched inbox one per delivery.
		UUID firstInbound = UUID.randomUUID();
		UUID secondInbound = UUID.randomUUID();
		OutboxScope copy = new OutboxScope(UUID.randomUUID(), List.of(this.messages.create(new Events.Audit("copy"))),
				firstInbound, "billing");
		OutboxScope event = new OutboxScope(UUID.randomUUID(), List.of(this.messages.create(new Events.Audit("event"))),
				secondInbound, "billing");

		new TransactionTemplate(this.transactionManager).executeWithoutResult((status) -> {
			this.orders.save(Order.place("kim", 100));
			this.writer.write(copy);
			this.writer.write(event);
		});

		List<String> unkeyed = this.jdbc.queryForList("SELECT s.inbound_message_id || ' ' || "
				+ "string_agg(convert_from(m.body, 'UTF8'), ',' ORDER BY m.sequence_number) FROM " + schema.name()
				+ ".outbox_state s JOIN " + schema.name() + ".outbox_message m ON m.outbox_id = s.id "
				+ "WHERE s.ordering_key IS NULL GROUP BY s.id, s.inbound_message_id", String.class);
		assertThat(unkeyed).containsExactlyInAnyOrder(firstInbound + " {\"what\":\"copy\"}",
				secondInbound + " {\"what\":\"event\"}");
		// The entity's own (keyed) events are a scope of their own as before.
		assertThat(scopes()).hasSize(3);
	}

	@Test
	void publishingWithoutEntitiesWritesThroughTheSessionToo() {
		statements.start();
		try {
			this.service.placeBetweenPublishes("ivy");
		}
		finally {
			statements.stop();
		}
		assertThat(statements.connections()).as("connections taken").isEqualTo(1);
		assertThat(statements.executions().stream().filter((e) -> e.touches("outbox_message"))).hasSize(1);
	}

	@Test
	void theJpaMappingsReadWhatTheOutboxWrote() {
		Order order = this.service.place("jo", "x");
		EntityManager entityManager = this.entityManagerFactory.createEntityManager();
		try {
			List<OutboxMessageEntity> messages = entityManager
				.createQuery("select m from WaybillOutboxMessage m join fetch m.scope order by m.sequenceNumber",
						OutboxMessageEntity.class)
				.getResultList();
			assertThat(messages).extracting(OutboxMessageEntity::getMessageType)
				.containsExactly("test.order-placed", "test.order-noted");
			OutboxMessageEntity first = messages.get(0);
			assertThat(new String(first.getBody())).contains(order.id().toString());
			assertThat(first.getDestination()).isEqualTo("test.order-placed");
			assertThat(first.getContentType()).isEqualTo("application/json");
			assertThat(first.getHeaders())
				.isEqualTo("{\"waybill-ordering-key\": \"" + Order.class.getName() + "#" + order.id() + "\"}");
			assertThat(first.getScope().getStatus()).isEqualTo("pending");
			assertThat(first.getScope().getMessageCount()).isEqualTo(2);
			Map<String, Object> row = this.jdbc.queryForMap("SELECT message_id, outbox_id FROM " + schema.name()
					+ ".outbox_message ORDER BY sequence_number LIMIT 1");
			assertThat(first.getMessageId()).isEqualTo(row.get("message_id"));
			assertThat(first.getScope().getId()).isEqualTo(row.get("outbox_id"));
		}
		finally {
			entityManager.close();
		}
	}

	private List<Map<String, Object>> scopes() {
		return this.jdbc.queryForList("SELECT id FROM " + schema.name() + ".outbox_state");
	}

	private List<String> messageTypes() {
		return this.jdbc.queryForList("SELECT message_type FROM " + schema.name()
				+ ".outbox_message ORDER BY sequence_number", String.class);
	}

	private List<String> bodies() {
		return this.jdbc.queryForList("SELECT convert_from(body, 'UTF8') FROM " + schema.name()
				+ ".outbox_message ORDER BY sequence_number", String.class);
	}

	private int count(String table) {
		return this.jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + "." + table, Integer.class);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Counting {

		@Bean
		static BeanPostProcessor countingDataSource() {
			return new BeanPostProcessor() {
				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					return (bean instanceof DataSource dataSource) ? statements.wrap(dataSource) : bean;
				}
			};
		}

	}

}
