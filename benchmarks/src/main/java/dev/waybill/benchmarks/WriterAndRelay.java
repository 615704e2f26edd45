package dev.waybill.benchmarks;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;

import dev.waybill.outbox.test.RelayWakeUps;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestSchema;

/**
 * Two instances of one service on a schema of their own, as {@link WakeUpCase} describes them: a
 * writer, which commits business transactions with an outbox message each, and a relay, each with
 * a connection pool of its own (through the pooler or straight to PostgreSQL). The writer is
 * started without RabbitMQ, so it has no relay and nothing of it dispatches directly: each message
 * reaches the relay instance only by the wake-up under test, the writer's {@code NOTIFY} heard by
 * the relay's {@code LISTEN}, or the relay's poll.
 *
 * @param wakeUp the case
 * @param writer the writer instance's load
 * @param relay the relay instance, paused except while {@link #measure} runs
 */
record WriterAndRelay(WakeUpCase wakeUp, WriteLoad writer, OutboxWiring relay) {

	/** The writer's pool: one connection per sender thread. */
	private static final int WRITER_POOL = Latency.SENDERS;

	/** The relay's pool: its workers' claims and marks, its notifier, and a listening connection. */
	private static final int RELAY_POOL = 6;

	private static final Duration MODE_DECIDED_WITHIN = Duration.ofSeconds(10);

	/**
	 * Starts both instances on a new schema; all of it is closed at the context's clean-up.
	 * @param context the benchmark context
	 * @param pooler the transaction-mode pooler, used by the cases that go through it
	 * @param wakeUp the case
	 * @param exchange where the messages go
	 * @return the running instances, the relay paused
	 */
	static WriterAndRelay start(BenchContext context, TestPgBouncer pooler, WakeUpCase wakeUp, String exchange) {
		TestSchema schema = context.schema(PooledLatency.NAME);
		HikariDataSource writerPool = pool(context, pooler, wakeUp, "writer-" + schema.name(), WRITER_POOL);
		HikariDataSource relayPool = pool(context, pooler, wakeUp, "relay-" + schema.name(), RELAY_POOL);
		OutboxWiring writerWiring = context.wiring(schema, (app) -> app.dataSource(writerPool));
		OutboxWiring relayWiring = context.wiring(schema,
				(app) -> wakeUp.configure(app.rabbit(context.rabbit()).dataSource(relayPool), context.postgres()));
		WriterAndRelay instances = new WriterAndRelay(wakeUp, new WriteLoad(writerWiring, exchange), relayWiring);
		instances.checkWakeUp();
		return instances;
	}

	private static HikariDataSource pool(BenchContext context, TestPgBouncer pooler, WakeUpCase wakeUp, String name,
			int size) {
		return context.register(wakeUp.pooled() ? pooler.pool(name, size) : context.postgres().pool(name, size));
	}

	/**
	 * Fails unless the relay instance's notification listener runs in the case's mode (and, to
	 * listen, holds its connection), so that no figure measures another wake-up than it names.
	 * @throws IllegalStateException when it runs in another mode or does not listen
	 */
	void checkWakeUp() {
		RelayWakeUps wakeUps = RelayWakeUps.of(this.relay.app().beans());
		String expected = this.wakeUp.expected();
		long deadline = System.nanoTime() + MODE_DECIDED_WITHIN.toNanos();
		while (!inMode(wakeUps, expected) && System.nanoTime() - deadline < 0) {
			sleepBriefly();
		}
		if (!inMode(wakeUps, expected)) {
			throw new IllegalStateException(this.wakeUp.label() + "case: the relay's wake-up in effect is "
					+ wakeUps.mode() + (wakeUps.listening() ? ", listening" : ", not listening")
					+ ", where the case needs " + expected);
		}
	}

	private static boolean inMode(RelayWakeUps wakeUps, String expected) {
		return expected.equals(wakeUps.mode()) && (!"listen".equals(expected) || wakeUps.listening());
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the relay's wake-up mode", ex);
		}
	}

	/**
	 * Offers the load to the writer with the relay running, and waits until the relay has
	 * published all of it; the relay is paused again afterwards.
	 * @param rate transactions per second
	 * @param warmUpSeconds seconds not measured
	 * @param seconds seconds measured
	 * @return the window: commit to confirm of each measured message
	 */
	LatencyWindow measure(int rate, int warmUpSeconds, int seconds) throws InterruptedException {
		return LatencyWindow.measure(this.relay, this.writer, rate, warmUpSeconds, seconds);
	}

}
