package dev.waybill.benchmarks;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.UUID;
import java.util.function.UnaryOperator;

import com.rabbitmq.client.Connection;

import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * What every benchmark works with: the services the tests use (found by {@link TestPostgres} and
 * {@link TestRabbit}: {@code WAYBILL_TEST_*} variables, else localhost), the sizes, the number of
 * runs, and the schemas, exchanges and queues it creates, all removed by {@link #cleanUp()}
 * after each benchmark (also when it fails) and by {@link #close()} at exit.
 */
public final class BenchContext implements AutoCloseable {

	private final TestPostgres postgres;

	private final TestRabbit rabbit;

	private final Sizes sizes;

	private final int runs;

	private final Connection admin;

	private final Deque<AutoCloseable> created = new ArrayDeque<>();

	BenchContext(Sizes sizes, int runs) {
		this.postgres = TestPostgres.get();
		this.rabbit = TestRabbit.get();
		this.sizes = sizes;
		this.runs = runs;
		this.admin = this.rabbit.connect();
	}

	public TestPostgres postgres() {
		return this.postgres;
	}

	public TestRabbit rabbit() {
		return this.rabbit;
	}

	public Sizes sizes() {
		return this.sizes;
	}

	public int runs() {
		return this.runs;
	}

	/**
	 * Creates a schema with Waybill's tables (applied by its Liquibase changelog), dropped at clean-up.
	 * @param role what it is for
	 * @return the schema
	 */
	public TestSchema schema(String role) {
		return register(TestSchema.withWaybillTables("bench_" + role));
	}

	/**
	 * Starts Waybill with RabbitMQ on a new schema of its own (see {@link OutboxWiring}); both are
	 * removed at clean-up.
	 * @param role what it is for
	 * @return the wiring
	 */
	OutboxWiring wiring(String role) {
		return wiring(schema(role), (app) -> app.rabbit(this.rabbit));
	}

	/**
	 * Starts Waybill on a schema, as {@code app} describes it on top of {@link WaybillApp#on}: the
	 * auto-configured defaults, without RabbitMQ unless it adds it. Closed at clean-up, before the
	 * schema when it was created first.
	 * @param schema the schema, e.g. from {@link #schema(String)}
	 * @param app adds to the application: RabbitMQ, properties, beans
	 * @return the wiring
	 */
	OutboxWiring wiring(TestSchema schema, UnaryOperator<WaybillApp.Builder> app) {
		return register(new OutboxWiring(schema, app.apply(WaybillApp.on(schema))));
	}

	/**
	 * Declares a durable fanout exchange bound to a durable queue, both deleted at clean-up.
	 * @param exchange the exchange's name
	 * @return the queue
	 */
	public BrokerQueue queue(String exchange) {
		return register(BrokerQueue.declare(this.admin, exchange, uniqueName("queue")));
	}

	/**
	 * Returns a name no other run uses, for exchanges and queues.
	 * @param role what the name is for
	 * @return {@code waybill-bench.<role>.<8 hex digits>}
	 */
	public String uniqueName(String role) {
		return "waybill-bench." + role.toLowerCase(Locale.ROOT) + "." + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Registers something to close at clean-up, in reverse order of registration.
	 * @param resource the resource
	 * @return the resource
	 */
	public synchronized <T extends AutoCloseable> T register(T resource) {
		this.created.push(resource);
		return resource;
	}

	/**
	 * Closes what the last benchmark created, newest first; reports what fails and goes on.
	 */
	public synchronized void cleanUp() {
		while (!this.created.isEmpty()) {
			AutoCloseable resource = this.created.pop();
			try {
				resource.close();
			}
			catch (Exception ex) {
				System.err.println("Clean-up of " + resource + " failed: " + ex);
			}
		}
	}

	@Override
	public synchronized void close() {
		cleanUp();
		try {
			if (this.admin.isOpen()) {
				this.admin.close(5000);
			}
		}
		catch (IOException | RuntimeException ex) {
			// closed anyway
		}
	}

}
