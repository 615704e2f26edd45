package dev.waybill.test.app;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.test.app.Messages.CardCharged;
import dev.waybill.test.app.Messages.OrderPlaced;
import dev.waybill.test.app.Messages.ShipOrder;

/**
 * A small application with Waybill for the harness's tests: orders publish {@link OrderPlaced};
 * {@link ChargeCardHandler} charges it (refusing negative amounts) and publishes
 * {@link CardCharged}; {@link ReceiptHandler} records it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class HarnessTestApplication {

	/**
	 * Points the application at the test database with a schema of its own (dropped when the
	 * context closes) and a small pool.
	 * @param registry the test's properties
	 */
	public static void database(DynamicPropertyRegistry registry) {
		TestPostgres postgres = TestPostgres.get();
		String schema = "harness_" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("spring.datasource.url", postgres::url);
		registry.add("spring.datasource.username", postgres::user);
		registry.add("spring.datasource.password", postgres::password);
		registry.add("spring.datasource.hikari.maximum-pool-size", () -> "6");
		registry.add("waybill.schema", () -> schema);
		registry.add("waybill.inbox.concurrency", () -> "2");
		registry.add("waybill.inbox.retry.max-attempts", () -> "2");
		registry.add("waybill.inbox.retry.interval", () -> "100ms");
		registry.add("waybill.outbox.relay.poll-interval", () -> "200ms");
	}

	@Bean
	Orders orders(OutboxPublisher publisher, TransactionTemplate transactions, JdbcTemplate jdbc) {
		return new Orders(publisher, transactions, jdbc);
	}

	@Bean
	Calls calls() {
		return new Calls();
	}

	@Bean
	ChargeCardHandler chargeCardHandler(Calls calls, JdbcTemplate jdbc) {
		return new ChargeCardHandler(calls, jdbc);
	}

	@Bean
	ReceiptHandler receiptHandler(Calls calls) {
		return new ReceiptHandler(calls);
	}

	@Bean
	SchemaDrop schemaDrop(@Value("${waybill.schema}") String schema) {
		return new SchemaDrop(schema);
	}

	/** Places orders: a business row and its event in one transaction. */
	public static final class Orders {

		private final OutboxPublisher publisher;

		private final TransactionTemplate transactions;

		private final JdbcTemplate jdbc;

		Orders(OutboxPublisher publisher, TransactionTemplate transactions, JdbcTemplate jdbc) {
			this.publisher = publisher;
			this.transactions = transactions;
			this.jdbc = jdbc;
		}

		public UUID place(long cents) {
			UUID id = UUID.randomUUID();
			this.transactions.executeWithoutResult((status) -> this.publisher.publish(new OrderPlaced(id, cents)));
			return id;
		}

		public UUID placeAndShip(long cents) {
			UUID id = UUID.randomUUID();
			this.transactions.executeWithoutResult((status) -> {
				this.publisher.publish(new OrderPlaced(id, cents));
				this.publisher.send("waybill-test-harness.shipping", new ShipOrder(id));
			});
			return id;
		}

		public void placeAndRollBack(long cents) {
			this.transactions.executeWithoutResult((status) -> {
				this.publisher.publish(new OrderPlaced(UUID.randomUUID(), cents));
				status.setRollbackOnly();
			});
		}

		JdbcTemplate jdbc() {
			return this.jdbc;
		}

	}

	/** What the handlers did, in order. */
	public static final class Calls {

		public final List<String> charged = new CopyOnWriteArrayList<>();

		public final List<UUID> receipts = new CopyOnWriteArrayList<>();

	}

	@Consumer(queue = "waybill-test-harness.charge-card")
	public static final class ChargeCardHandler implements MessageHandler<OrderPlaced> {

		private final Calls calls;

		private final JdbcTemplate jdbc;

		ChargeCardHandler(Calls calls, JdbcTemplate jdbc) {
			this.calls = calls;
			this.jdbc = jdbc;
		}

		@Override
		public void handle(OrderPlaced message, MessageContext context) {
			if (message.cents() < 0) {
				throw new IllegalArgumentException("cannot charge " + message.cents() + " cents");
			}
			// A business statement in the inbox transaction, as a real handler would run.
			this.jdbc.queryForObject("SELECT 1", Integer.class);
			this.calls.charged.add(message.orderId() + " " + context.messageId());
			context.publish(new CardCharged(message.orderId(), message.cents()));
		}

	}

	@Consumer(queue = "waybill-test-harness.receipts")
	public static final class ReceiptHandler implements MessageHandler<CardCharged> {

		private final Calls calls;

		ReceiptHandler(Calls calls) {
			this.calls = calls;
		}

		@Override
		public void handle(CardCharged message, MessageContext context) {
			this.calls.receipts.add(message.orderId());
		}

	}

	/** Drops the test's schema once everything else has stopped. */
	static final class SchemaDrop implements SmartLifecycle {

		private final String schema;

		private volatile boolean running;

		SchemaDrop(String schema) {
			this.schema = schema.toLowerCase(Locale.ROOT);
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
				statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not drop " + this.schema, ex);
			}
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WaybillPhases.LISTENER - 1;
		}

	}

}
