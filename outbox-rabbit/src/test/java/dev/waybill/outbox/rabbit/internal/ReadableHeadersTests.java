package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.MalformedFrameException;
import com.rabbitmq.client.impl.AMQContentHeader;
import com.rabbitmq.client.impl.AMQImpl;
import com.rabbitmq.client.impl.ValueReader;
import com.rabbitmq.client.impl.ValueWriter;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.InboxHeaders;

/**
 * {@link ReadableHeaders} judges a header table as the RabbitMQ Java client reads it, and replaces
 * only what the client cannot read.
 */
class ReadableHeadersTests {

	@Test
	void agreesWithTheClientOnHowDeeplyTablesAndArraysMayNest() throws IOException {
		for (int depth = 28; depth <= 36; depth++) {
			for (boolean arrays : new boolean[] { false, true }) {
				byte[] table = table(Map.of("tenant", "acme", "deep", nested(depth, arrays)));
				boolean clientReads = clientReads(table);
				assertThat(ReadableHeaders.problem(ByteBuffer.wrap(table), 0) == null)
					.as("depth %d, %s", depth, arrays ? "arrays" : "tables")
					.isEqualTo(clientReads);
			}
		}
		assertThat(clientReads(table(Map.of("deep", nested(31, false))))).isTrue();
		assertThat(clientReads(table(Map.of("deep", nested(33, false))))).isFalse();
	}

	@Test
	void holdsTheNestingLimitOnEveryClientAndPassesOnlyWhatTheClientReads() throws IOException {
		// The 5.30 client reads tables nested at any depth; newer ones refuse what the limit refuses.
		for (int depth = 28; depth <= 36; depth++) {
			for (boolean arrays : new boolean[] { false, true }) {
				byte[] table = table(Map.of("tenant", "acme", "deep", nested(depth, arrays)));
				boolean readable = ReadableHeaders.problem(ByteBuffer.wrap(table), 0) == null;
				assertThat(readable).as("depth %d, %s", depth, arrays ? "arrays" : "tables")
					.isEqualTo(depth <= ReadableHeaders.MAX_DEPTH);
				if (readable) {
					assertThat(clientReads(table)).as("depth %d, %s", depth, arrays ? "arrays" : "tables").isTrue();
				}
			}
		}
	}

	@Test
	void aTableNestedAsDeeplyAsAFrameHoldsIsUnreadableWithoutReadingItToTheBottom() throws IOException {
		// 128 KiB, the broker's default frame size, holds 18,000 levels: the 5.30 client overflows
		// its stack reading them.
		int levels = 18_000;
		ByteBuffer nested = ByteBuffer.allocate(7 * levels + 3);
		for (int level = 0; level < levels; level++) {
			// each level is a field "a" whose value is the table of the levels below
			nested.put((byte) 1).put((byte) 'a').put((byte) 'F').putInt(7 * (levels - level - 1) + 3);
		}
		byte[] table = nested.put((byte) 1).put((byte) 'a').put((byte) 'V').array();
		assertThat(ReadableHeaders.problem(ByteBuffer.wrap(table), 0)).contains("nested deeper than 32 levels");

		byte[] payload = ByteBuffer.allocate(14 + 4 + table.length).putShort((short) 60).putShort((short) 0)
			.putLong(12).putShort((short) (1 << 13)).putInt(table.length).put(table).array();
		AMQP.BasicProperties readable = (AMQP.BasicProperties) readContentHeader(ReadableHeaders.of(payload));
		assertThat(readable.getHeaders()).containsOnlyKeys(InboxHeaders.UNREADABLE_HEADERS,
				InboxHeaders.UNREADABLE_HEADERS_REASON);
		assertThat((byte[]) readable.getHeaders().get(InboxHeaders.UNREADABLE_HEADERS)).isEqualTo(table);
	}

	@Test
	void everyTypeTheClientWritesIsReadable() throws IOException {
		Map<String, Object> every = new LinkedHashMap<>();
		every.put("S", "text");
		every.put("I", 7);
		every.put("l", 7L);
		every.put("d", 1.5d);
		every.put("f", 1.5f);
		every.put("s", (short) 7);
		every.put("b", (byte) 7);
		every.put("t", true);
		every.put("D", new java.math.BigDecimal("1.25"));
		every.put("T", new java.util.Date(1_700_000_000_000L));
		every.put("x", new byte[] { 1, 2, 3 });
		every.put("V", null);
		every.put("A", List.of(1, "two", Map.of("three", 3)));
		every.put("F", Map.of("inner", List.of()));
		byte[] table = table(every);

		assertThat(clientReads(table)).isTrue();
		assertThat(ReadableHeaders.problem(ByteBuffer.wrap(table), 0)).isNull();
	}

	@Test
	void anUnknownFieldTypeOrALengthBeyondTheTableIsUnreadable() throws IOException {
		byte[] unknown = { 3, 'k', 'e', 'y', 'Z', 0 };
		assertThat(clientReads(unknown)).isFalse();
		assertThat(ReadableHeaders.problem(ByteBuffer.wrap(unknown), 0)).contains("type 'Z'");

		byte[] tooLong = { 3, 'k', 'e', 'y', 'S', 0, 0, 0, 100, 'a' };
		assertThat(clientReads(tooLong)).isFalse();
		assertThat(ReadableHeaders.problem(ByteBuffer.wrap(tooLong), 0)).contains("longer than its table");
	}

	@Test
	void aContentHeaderWithUnreadableHeadersKeepsItsPropertiesAndTheHeadersBytes() throws IOException {
		Map<String, Object> headers = Map.of("deep", nested(40, false));
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().contentType("application/json")
			.contentEncoding("identity")
			.headers(headers)
			.messageId("3f1c1e8e-4a5b-4bb1-9d55-0f7d2f6b7c10")
			.type("orders.placed")
			.deliveryMode(2)
			.build();
		byte[] payload = contentHeader(properties, 1234);
		assertThatExceptionOfType(MalformedFrameException.class).as("what the client does without it")
			.isThrownBy(() -> readContentHeader(payload));

		AMQContentHeader read = readContentHeader(ReadableHeaders.of(payload));

		AMQP.BasicProperties readable = (AMQP.BasicProperties) read;
		assertThat(read.getBodySize()).isEqualTo(1234);
		assertThat(readable.getContentType()).isEqualTo("application/json");
		assertThat(readable.getContentEncoding()).isEqualTo("identity");
		assertThat(readable.getMessageId()).isEqualTo("3f1c1e8e-4a5b-4bb1-9d55-0f7d2f6b7c10");
		assertThat(readable.getType()).isEqualTo("orders.placed");
		assertThat(readable.getDeliveryMode()).isEqualTo(2);
		assertThat(readable.getHeaders()).containsOnlyKeys(InboxHeaders.UNREADABLE_HEADERS,
				InboxHeaders.UNREADABLE_HEADERS_REASON);
		assertThat((byte[]) readable.getHeaders().get(InboxHeaders.UNREADABLE_HEADERS)).isEqualTo(table(headers));
		assertThat(readable.getHeaders().get(InboxHeaders.UNREADABLE_HEADERS_REASON)).asString()
			.contains("nested deeper than 32 levels");
	}

	@Test
	void aReadableContentHeaderIsLeftAsItIs() throws IOException {
		byte[] payload = contentHeader(new AMQP.BasicProperties.Builder().headers(Map.of("tenant", "acme")).build(), 1);
		assertThat(ReadableHeaders.of(payload)).isSameAs(payload);
		byte[] none = contentHeader(new AMQP.BasicProperties.Builder().type("t").build(), 1);
		assertThat(ReadableHeaders.of(none)).isSameAs(none);
	}

	static Object nested(int depth, boolean arrays) {
		Object value = "bottom";
		for (int i = 0; i < depth; i++) {
			if (arrays) {
				List<Object> array = new ArrayList<>();
				array.add(value);
				value = array;
			}
			else {
				value = Map.of("a", value);
			}
		}
		return value;
	}

	private static byte[] table(Map<String, Object> table) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		new ValueWriter(new DataOutputStream(bytes)).writeTable(table);
		byte[] withLength = bytes.toByteArray();
		byte[] withoutLength = new byte[withLength.length - 4];
		System.arraycopy(withLength, 4, withoutLength, 0, withoutLength.length);
		return withoutLength;
	}

	private static boolean clientReads(byte[] table) {
		ByteBuffer withLength = ByteBuffer.allocate(table.length + 4).putInt(table.length).put(table);
		try {
			new ValueReader(new DataInputStream(new ByteArrayInputStream(withLength.array()))).readTable();
			return true;
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

	private static byte[] contentHeader(AMQP.BasicProperties properties, long bodySize) throws IOException {
		return ((AMQContentHeader) properties).toFrame(1, bodySize).getPayload();
	}

	private static AMQContentHeader readContentHeader(byte[] payload) throws IOException {
		DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
		int classId = in.readUnsignedShort();
		in.readUnsignedShort(); // weight
		long bodySize = in.readLong();
		AMQContentHeader header = (AMQContentHeader) AMQImpl.readContentHeaderFrom(new DataInputStream(
				new ByteArrayInputStream(payload)));
		assertThat(classId).isEqualTo(60);
		assertThat(header.getBodySize()).isEqualTo(bodySize);
		return header;
	}

}
