package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class HeaderCodecTests {

	@Test
	void plainValuesArePlainJson() {
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put("priority", 3);
		headers.put("urgent", true);
		headers.put("ratio", 0.25d);
		headers.put("big", 5_000_000_000L);
		headers.put("huge", BigInteger.TWO.pow(70));
		headers.put("path", List.of("a", 1, false));
		headers.put("nested", Map.of("region", "eu"));

		String json = HeaderCodec.write(headers);

		assertThat(json).isEqualTo("{\"tenant\":\"acme\",\"priority\":3,\"urgent\":true,\"ratio\":0.25,"
				+ "\"big\":5000000000,\"huge\":1180591620717411303424,\"path\":[\"a\",1,false],"
				+ "\"nested\":{\"region\":\"eu\"}}");
		assertRoundTrip(headers);
	}

	@Test
	void everyAmqpTypeReadsBackWithItsClassAndValue() {
		Map<String, Object> nested = new LinkedHashMap<>();
		nested.put("when", new Date(1_700_000_000_000L));
		nested.put("raw", new byte[] { 0, 1, (byte) 0xff });
		nested.put("none", null);
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("sent", new Date(1_700_000_000_000L));
		headers.put("millis", new Date(1_700_000_000_123L));
		headers.put("bytes", new byte[] { 0, 'a', (byte) 0x80 });
		headers.put("table", nested);
		headers.put("array", new ArrayList<>(Arrays.asList(1, 2L, "x\0y", new byte[] { 7 }, null, List.of(3.5f))));
		headers.put("long", 7L);
		headers.put("negative-long", -1L);
		headers.put("short", (short) 12);
		headers.put("byte", (byte) -3);
		headers.put("float", 0.1f);
		headers.put("float-nan", Float.NaN);
		headers.put("double-nan", Double.NaN);
		headers.put("double-infinite", Double.NEGATIVE_INFINITY);
		headers.put("double-whole", 5.0d);
		headers.put("double-negative-zero", -0.0d);
		headers.put("decimal", new BigDecimal("12.50"));
		headers.put("decimal-exponent", new BigDecimal("1E+3"));
		headers.put("nul", "before\0after");
		headers.put("only-nul", "\0");
		headers.put("unicode", "Zürich \uD83D\uDE80");

		Map<String, Object> read = HeaderCodec.read(HeaderCodec.write(headers));

		assertThat(read).containsOnlyKeys(headers.keySet());
		assertThat(read.get("sent")).isInstanceOf(Date.class).isEqualTo(new Date(1_700_000_000_000L));
		assertThat(read.get("millis")).isEqualTo(new Date(1_700_000_000_123L));
		assertThat(read.get("bytes")).isInstanceOf(byte[].class).isEqualTo(new byte[] { 0, 'a', (byte) 0x80 });
		assertThat(read.get("table")).isInstanceOf(Map.class);
		@SuppressWarnings("unchecked")
		Map<String, Object> table = (Map<String, Object>) read.get("table");
		assertThat(table.get("when")).isEqualTo(new Date(1_700_000_000_000L));
		assertThat(table.get("raw")).isEqualTo(new byte[] { 0, 1, (byte) 0xff });
		assertThat(table).containsEntry("none", null);
		assertThat(read.get("array")).isInstanceOf(List.class);
		List<?> array = (List<?>) read.get("array");
		assertThat(array).hasSize(6);
		assertThat(array.get(0)).isEqualTo(1);
		assertThat(array.get(1)).isEqualTo(2L);
		assertThat(array.get(2)).isEqualTo("x\0y");
		assertThat(array.get(3)).isEqualTo(new byte[] { 7 });
		assertThat(array.get(4)).isNull();
		assertThat(array.get(5)).isEqualTo(List.of(3.5f));
		assertThat(read.get("long")).isEqualTo(7L);
		assertThat(read.get("negative-long")).isEqualTo(-1L);
		assertThat(read.get("short")).isEqualTo((short) 12);
		assertThat(read.get("byte")).isEqualTo((byte) -3);
		assertThat(read.get("float")).isEqualTo(0.1f);
		assertThat(read.get("float-nan")).isEqualTo(Float.NaN);
		assertThat(read.get("double-nan")).isEqualTo(Double.NaN);
		assertThat(read.get("double-infinite")).isEqualTo(Double.NEGATIVE_INFINITY);
		assertThat(read.get("double-whole")).isEqualTo(5.0d);
		assertThat(read.get("double-negative-zero")).isEqualTo(-0.0d);
		assertThat(read.get("decimal")).isInstanceOf(BigDecimal.class).hasToString("12.50");
		assertThat(read.get("decimal-exponent")).isEqualTo(new BigDecimal("1E+3"));
		assertThat(read.get("nul")).isEqualTo("before\0after");
		assertThat(read.get("only-nul")).isEqualTo("\0");
		assertThat(read.get("unicode")).isEqualTo("Zürich \uD83D\uDE80");
	}

	@Test
	void theJsonHasNoNulForPostgresqlToRefuse() {
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("nul", "a\0b");
		headers.put("name\0with-nul", "v");
		headers.put("nested", Map.of("k\0", List.of("\0")));

		String json = HeaderCodec.write(headers);

		assertThat(json).doesNotContain("\\u0000").doesNotContain("\0");
		Map<String, Object> read = HeaderCodec.read(json);
		assertThat(read).containsEntry("nul", "a\0b").containsEntry("name\0with-nul", "v");
		assertThat(read.get("nested")).isEqualTo(Map.of("k\0", List.of("\0")));
	}

	@Test
	void taggedValuesAreReadableJson() {
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("sent", new Date(1_700_000_000_000L));
		headers.put("nul", "a\0b");
		headers.put("long", 7L);

		assertThat(HeaderCodec.write(headers)).isEqualTo("{\"sent\":{\"$amqp\":\"timestamp\",\"value\":\"2023-11-14T22:13:20Z\"},"
				+ "\"nul\":{\"$amqp\":\"string\",\"value\":\"YQBi\"},\"long\":{\"$amqp\":\"long\",\"value\":7}}");
	}

	@Test
	void aHeaderThatLooksLikeATaggedValueStaysWhatItWas() {
		Map<String, Object> lookalike = new LinkedHashMap<>();
		lookalike.put("$amqp", "timestamp");
		lookalike.put("value", "2023-11-14T22:13:20Z");
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("lookalike", lookalike);
		headers.put("tag-only", Map.of("$amqp", "bytes"));
		headers.put("deeper", List.of(Map.of("$amqp", "table", "value", List.of())));
		headers.put("$amqp", "a top-level header named like the tag");

		Map<String, Object> read = HeaderCodec.read(HeaderCodec.write(headers));

		assertThat(read.get("lookalike")).isEqualTo(lookalike);
		assertThat(read.get("tag-only")).isEqualTo(Map.of("$amqp", "bytes"));
		assertThat(read.get("deeper")).isEqualTo(List.of(Map.of("$amqp", "table", "value", List.of())));
		assertThat(read.get("$amqp")).isEqualTo("a top-level header named like the tag");
		assertThat(read).hasSize(4);
	}

	@Test
	void rowsWrittenBeforeTagsExistedReadAsBefore() {
		assertThat(HeaderCodec.read("{\"tenant\":\"acme\",\"priority\":3,\"urgent\":true,\"ratio\":1.5}"))
			.containsExactly(Map.entry("tenant", "acme"), Map.entry("priority", 3), Map.entry("urgent", true),
					Map.entry("ratio", 1.5d));
	}

	@Test
	void anUnknownTagOrAMalformedValueReadsAsThePlainMap() {
		Map<String, Object> read = HeaderCodec.read("{\"a\":{\"$amqp\":\"future-type\",\"value\":1},"
				+ "\"b\":{\"$amqp\":\"bytes\",\"value\":\"not base64!\"},\"c\":{\"$amqp\":\"long\"}}");

		assertThat(read.get("a")).isEqualTo(Map.of("$amqp", "future-type", "value", 1));
		assertThat(read.get("b")).isEqualTo(Map.of("$amqp", "bytes", "value", "not base64!"));
		assertThat(read.get("c")).isEqualTo(Map.of("$amqp", "long"));
	}

	@Test
	void unpairedSurrogatesAreStoredAsReplacementCharacters() {
		Map<String, Object> read = HeaderCodec.read(HeaderCodec.write(Map.of("s", "a\uD800b\uDC00", "\uDC00", "v")));

		assertThat(read).containsEntry("s", "a\uFFFDb\uFFFD").containsEntry("\uFFFD", "v");
	}

	@Test
	void otherValuesAreStoredAsTheirText() {
		assertThat(HeaderCodec.read(HeaderCodec.write(Map.of("uri", java.net.URI.create("urn:x"), "chars",
				new Object[] { 'c', 1 })))).containsEntry("uri", "urn:x").containsEntry("chars", List.of("c", 1));
	}

	@Test
	void emptyHeadersAreTheSharedEmptyMapWithoutJson() {
		assertThat(HeaderCodec.write(Map.of())).isEqualTo("{}");
		assertThat(HeaderCodec.read("{}")).isSameAs(Map.of());
	}

	@Test
	void aColumnThatIsNoObjectIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> HeaderCodec.read("[1]")).withMessageContaining("[1]");
	}

	private static void assertRoundTrip(Map<String, Object> headers) {
		Map<String, Object> read = HeaderCodec.read(HeaderCodec.write(headers));
		assertThat(read).isEqualTo(headers);
		headers.forEach((name, value) -> {
			if (value instanceof Map) {
				assertThat(read.get(name)).as(name).isInstanceOf(Map.class);
			}
			else if (value instanceof List) {
				assertThat(read.get(name)).as(name).isInstanceOf(List.class);
			}
			else {
				assertThat(read.get(name)).as(name).hasSameClassAs(value);
			}
		});
	}

}
