package dev.waybill.integration.ordering;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.test.TestSchema;

/**
 * The ordering tests' handler: records each handled event of a key in the inbox transaction (in
 * {@code <schema>.handled}, see {@link #createTable}), notices two events of one key handled at the
 * same time, and remembers every call of the handler.
 * @param <T> the event type
 */
final class KeyedRecorder<T> implements MessageHandler<T> {

	private final JdbcTemplate jdbc;

	private final String table;

	private final String name;

	private final Function<T> key;

	private final ToIntFunction<T> seq;

	private final Shared shared;

	KeyedRecorder(TestSchema schema, String name, Function<T> key, ToIntFunction<T> seq, Shared shared) {
		this.jdbc = new JdbcTemplate(schema.dataSource());
		this.table = schema.name() + ".handled";
		this.name = name;
		this.key = key;
		this.seq = seq;
		this.shared = shared;
	}

	/** Creates the table the recorders of {@code schema} write. */
	static void createTable(TestSchema schema) {
		schema.execute("CREATE TABLE " + schema.name() + ".handled (n bigserial PRIMARY KEY, ordering_key text NOT NULL, "
				+ "seq int NOT NULL, message_id uuid NOT NULL, consumer text NOT NULL, redelivery int NOT NULL)");
	}

	@Override
	public void handle(T event, MessageContext context) {
		String key = this.key.apply(event);
		int seq = this.seq.applyAsInt(event);
		this.shared.calls.computeIfAbsent(key, (k) -> Collections.synchronizedList(new ArrayList<>()))
			.add(seq + "/" + this.name);
		AtomicBoolean keyBusy = this.shared.busy.computeIfAbsent(key, (k) -> new AtomicBoolean());
		if (!keyBusy.compareAndSet(false, true)) {
			this.shared.overlaps.incrementAndGet();
		}
		try {
			this.jdbc.update("INSERT INTO " + this.table + " (ordering_key, seq, message_id, consumer, redelivery) "
					+ "VALUES (?, ?, ?, ?, ?)", key, seq, context.messageId(), this.name, deliveryCount(context));
		}
		finally {
			keyBusy.set(false);
		}
	}

	/** A quorum queue's count of earlier deliveries (x-delivery-count), 0 when absent (classic queues). */
	private static int deliveryCount(MessageContext context) {
		Object count = context.headers().get("x-delivery-count");
		return (count instanceof Number number) ? number.intValue() : 0;
	}

	/** What the recorders of one test share: keys being handled, overlaps seen, calls per key. */
	static final class Shared {

		final Map<String, AtomicBoolean> busy = new ConcurrentHashMap<>();

		final AtomicInteger overlaps = new AtomicInteger();

		/** Every call of a handler per key, as "seq/recorder", in call order. */
		final Map<String, List<String>> calls = new ConcurrentHashMap<>();

	}

	/** Reads a key from an event. */
	interface Function<T> {

		String apply(T event);

	}

}
