package dev.waybill.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestSchema;

/**
 * What PostgreSQL or the broker would refuse later is refused at publish, naming the message type
 * and the field, and nothing of the refused message is written.
 */
class PublishValidationIntegrationTests {

	private static final String TYPE = "test.validated";

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("validation");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@AfterEach
	void deleteRows() {
		schema.execute("DELETE FROM " + schema.tables().qualifiedOutboxMessage());
		schema.execute("DELETE FROM " + schema.tables().qualifiedOutboxState());
	}

	@Test
	void aNulCharacterIsRefusedInEveryStringField() {
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("ten\0ant", "acme")),
				"the header name 'ten\\u0000ant' contains a NUL character (U+0000) at index 3");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("tenant", "ac\0me")),
				"the value of header 'tenant' contains a NUL character (U+0000) at index 2");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.correlationId("\0")),
				"the correlation id contains a NUL character");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.conversationId("conv\0")),
				"the conversation id contains a NUL character (U+0000) at index 4");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.routingKey("eu\0")),
				"the routing key contains a NUL character");
		assertRefused((p) -> p.send("orders\0", new Validated(1)), "the destination contains a NUL character");
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(publisher(), (p) -> p.publish(new NulType())))
			.withMessageStartingWith("Cannot publish message of type 'test.nul")
			.withMessageContaining("must be 1 to 255 letters, digits"); // MessageTypes checks names
		assertNothingWritten();
	}

	@Test
	void anUnpairedSurrogateIsRefusedInEveryStringFieldRatherThanWrittenAsAQuestionMark() {
		String lone = "hostile\uD800";
		assertRefused((p) -> p.send(lone, new Validated(1)),
				"the destination contains an unpaired surrogate (U+D800) at index 7; it is not valid Unicode, and"
						+ " PostgreSQL would store it as '?'");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.routingKey(lone)),
				"the routing key contains an unpaired surrogate (U+D800) at index 7");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header(lone, "v")),
				"the header name 'hostile\\uD800' contains an unpaired surrogate (U+D800) at index 7");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("tenant", lone)),
				"the value of header 'tenant' contains an unpaired surrogate (U+D800) at index 7");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.orderingKey(lone)),
				"the ordering key (header 'waybill-ordering-key') contains an unpaired surrogate (U+D800) at index 7");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.correlationId("\uDC00")),
				"the correlation id contains an unpaired surrogate (U+DC00) at index 0");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.conversationId(lone)),
				"the conversation id contains an unpaired surrogate (U+D800) at index 7");
		assertRefused((p) -> p.scheduleSend(lone, new Validated(1), Instant.now().plusSeconds(60), (o) -> {
		}), "the destination contains an unpaired surrogate");
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(publisher(), (p) -> p.publish(new SurrogateType())))
			.withMessageContaining("must be 1 to 255 letters, digits"); // MessageTypes checks names
		assertNothingWritten();

		// A well-formed pair (an emoji) is stored and read back as it was sent.
		String emoji = "orders-\uD83D\uDE00";
		inTransaction(publisher(), (p) -> p.send(emoji, new Validated(1),
				(o) -> o.routingKey(emoji).header(emoji, emoji).correlationId(emoji).orderingKey(emoji)));
		assertThat(new JdbcTemplate(schema.dataSource()).queryForObject("SELECT destination || '|' || routing_key FROM "
				+ schema.tables().qualifiedOutboxMessage(), String.class)).isEqualTo(emoji + "|" + emoji);
	}

	@Test
	void anUnpairedSurrogateInAJsonBodyIsEscapedAndReadsBack() {
		JacksonMessageSerializer json = new JacksonMessageSerializer();

		byte[] body = json.serialize(new Named("hostile\uD800"));

		assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"name\":\"hostile\\uD800\"}");
		assertThat(json.deserialize(body, Named.class)).isEqualTo(new Named("hostile\uD800"));
		inTransaction(publisher(), (p) -> p.publish(new Named("hostile\uD800")));
		byte[] stored = new JdbcTemplate(schema.dataSource())
			.queryForObject("SELECT body FROM " + schema.tables().qualifiedOutboxMessage(), byte[].class);
		assertThat(json.deserialize(stored, Named.class)).isEqualTo(new Named("hostile\uD800"));
	}

	@Test
	void aTimeOutsideWhatTheOutboxStoresIsRefusedAtTheCallAndTheTransactionStillCommits() {
		schema.execute("CREATE TABLE IF NOT EXISTS " + schema.name() + ".business (id int PRIMARY KEY)");
		String range = "the outbox stores times from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		OutboxPublisher publisher = publisher();
		new TransactionTemplate(new DataSourceTransactionManager(schema.dataSource())).executeWithoutResult((status) -> {
			jdbc.update("INSERT INTO " + schema.name() + ".business (id) VALUES (1)");
			for (Instant bad : new Instant[] { Instant.MAX, Instant.MIN, Instant.parse("+300000-01-01T00:00:00Z"),
					Instant.parse("+294277-01-01T00:00:00Z"), Instant.parse("-5000-01-01T00:00:00Z") }) {
				assertRefused(publisher, (p) -> p.publish(new Validated(1), (o) -> o.notBefore(bad)),
						"the not-before time (notBefore, or the time given to schedule) is " + bad + "; " + range);
				assertRefused(publisher, (p) -> p.schedule(new Validated(1), bad),
						"the not-before time (notBefore, or the time given to schedule) is " + bad + "; " + range);
				assertRefused(publisher, (p) -> p.scheduleSend("orders", new Validated(1), bad, (o) -> {
				}), "the not-before time", range);
			}
			assertRefused(publisher, (p) -> p.publish(new Validated(1), (o) -> o.timeToLive(Duration.ofMillis(Long.MAX_VALUE))),
					"the timeToLive PT2562047788015H12M55.807S from ", " ends at +292", range);
			assertRefused(publisher, (p) -> p.publish(new Validated(1), (o) -> o.timeToLive(Duration.ofSeconds(Long.MAX_VALUE))),
					"the timeToLive PT2562047788015215H30M7S from ", " ends beyond any representable time", range);
			assertRefused(publisher, (p) -> p.schedule(new Validated(1), Instant.parse("9999-12-01T00:00:00Z"),
					(o) -> o.timeToLive(Duration.ofDays(60))),
					"the timeToLive PT1440H from 9999-12-01T00:00:00Z ends at +10000-01-30T00:00:00Z", range);
			publisher.publish(new Validated(2), (o) -> o.timeToLive(Duration.ofDays(365)));
			publisher.schedule(new Validated(3), Instant.parse("9999-12-31T23:59:59.999999Z"));
		});
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".business", Integer.class)).isOne();
		assertThat(count()).isEqualTo(2);
		schema.execute("DROP TABLE " + schema.name() + ".business");
	}

	@Test
	void aNulInTheContentTypeIsRefused() {
		JacksonMessageSerializer json = new JacksonMessageSerializer();
		DefaultOutboxPublisher publisher = new DefaultOutboxPublisher(store, new MessageSerializer() {

			@Override
			public String contentType() {
				return "application/json\0";
			}

			@Override
			public byte[] serialize(Object message) {
				return json.serialize(message);
			}

			@Override
			public <T> T deserialize(byte[] body, Class<T> type) {
				return json.deserialize(body, type);
			}

		}, new RelayWakeUp(), 1 << 20, Clock.systemUTC(), "test-host");

		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(publisher, (p) -> p.publish(new Validated(1))))
			.withMessageContaining("'" + TYPE + "'")
			.withMessageContaining("the content type contains a NUL character");
	}

	@Test
	void shortStringsOver255BytesOfUtf8AreRefused() {
		String fits = "x".repeat(255);
		String tooLong = "é".repeat(128); // 128 characters, 256 bytes
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header(tooLong, "v")),
				"the header name '" + "é".repeat(100) + "...' is 256 bytes in UTF-8; AMQP allows at most 255 bytes");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.routingKey(tooLong)),
				"the routing key is 256 bytes in UTF-8; AMQP allows at most 255 bytes");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.correlationId(tooLong)),
				"the correlation id is 256 bytes in UTF-8");
		assertRefused((p) -> p.send(tooLong, new Validated(1)), "the destination is 256 bytes in UTF-8");
		assertNothingWritten();

		inTransaction(publisher(), (p) -> p.send(fits, new Validated(1),
				(o) -> o.header(fits, "v").routingKey(fits).correlationId(fits)));
		assertThat(count()).isOne();
	}

	@Test
	void nanAndInfiniteHeaderNumbersAreRefused() {
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("ratio", Double.NaN)),
				"the value of header 'ratio' is NaN; header numbers must be finite");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("ratio", Double.POSITIVE_INFINITY)),
				"the value of header 'ratio' is Infinity");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("ratio", Float.NEGATIVE_INFINITY)),
				"the value of header 'ratio' is -Infinity");
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("ratio", Float.NaN)),
				"the value of header 'ratio' is NaN");
		assertNothingWritten();
	}

	@Test
	void headersOverWhatOneFrameCarriesAreRefusedNamingTheLimit() {
		assertRefused((p) -> p.publish(new Validated(1), (o) -> o.header("big", "x".repeat(131_072))),
				"its headers and properties take about ", " bytes encoded, over the 131064 bytes one AMQP frame carries",
				"waybill.rabbit.frame-max");
		assertRefused(publisher(() -> 1000), (p) -> p.publish(new Validated(1), (o) -> o.header("a", "x".repeat(500))
			.header("b", "y".repeat(500))), "over the 1000 bytes one AMQP frame carries");
		assertNothingWritten();
	}

	@Test
	void theHeaderEstimateCountsUtf8BytesAndEveryField() {
		// Found by the refusal: the same message with one more byte of header is over the limit.
		Consumer<PublishOptions> options = (o) -> o.header("city", "Zürich").header("rank", 7)
			.header("amount", new BigDecimal("12.50")).header("urgent", true).correlationId("corr-1").routingKey("eu");
		long size = estimate(options);
		assertThat(estimate(options.andThen((o) -> o.header("city", "Zürichx")))).isEqualTo(size + 1);
		assertThat(estimate(options.andThen((o) -> o.header("city", "Züriché")))).isEqualTo(size + 2);
		assertThat(estimate(options.andThen((o) -> o.correlationId("corr-12")))).isEqualTo(size + 1);

		inTransaction(publisher(() -> size), (p) -> p.publish(new Validated(1), options));
		assertThat(count()).isOne();
	}

	@Test
	void theJsonSerializerWritesNanAndInfinityAsStringsThatReadBack() {
		JacksonMessageSerializer json = new JacksonMessageSerializer();

		byte[] body = json.serialize(new Measured(Double.NaN, Double.NEGATIVE_INFINITY));

		assertThat(new String(body)).isEqualTo("{\"value\":\"NaN\",\"low\":\"-Infinity\"}");
		assertThat(json.deserialize(body, Measured.class)).isEqualTo(new Measured(Double.NaN, Double.NEGATIVE_INFINITY));
		inTransaction(publisher(), (p) -> p.publish(new Measured(Double.NaN, 1)));
		assertThat(count()).isOne();
	}

	private long estimate(Consumer<PublishOptions> options) {
		try {
			inTransaction(publisher(() -> 0), (p) -> p.publish(new Validated(1), options));
		}
		catch (InvalidMessageException ex) {
			String text = ex.getMessage();
			int start = text.indexOf("take about ") + "take about ".length();
			return Long.parseLong(text.substring(start, text.indexOf(' ', start)));
		}
		throw new AssertionError("not refused");
	}

	private static void assertRefused(Consumer<OutboxPublisher> publish, String... expected) {
		assertRefused(publisher(), publish, expected);
	}

	private static void assertRefused(OutboxPublisher publisher, Consumer<OutboxPublisher> publish, String... expected) {
		InvalidMessageException refused = catchThrowableOfType(InvalidMessageException.class,
				() -> {
					if (TransactionSynchronizationManager.isActualTransactionActive()) {
						publish.accept(publisher); // inside the caller's transaction
					}
					else {
						inTransaction(publisher, publish);
					}
				});
		assertThat(refused).as("refused").isNotNull();
		assertThat(refused).hasMessageStartingWith("Cannot publish message of type '" + TYPE + "': ");
		assertThat(refused.getMessageType()).isEqualTo(TYPE);
		for (String part : expected) {
			assertThat(refused).hasMessageContaining(part);
		}
	}

	private static void assertNothingWritten() {
		assertThat(count()).isZero();
	}

	private static int count() {
		return new JdbcTemplate(schema.dataSource())
			.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxMessage(), Integer.class);
	}

	private static OutboxPublisher publisher() {
		return publisher(() -> Transport.DEFAULT_MAX_HEADER_BYTES);
	}

	private static OutboxPublisher publisher(LongSupplier maxHeaderBytes) {
		return new DefaultOutboxPublisher(store, new JacksonMessageSerializer(), new RelayWakeUp(), 1 << 20,
				Clock.systemUTC(), "test-host", new OutboxBacklog(), 0, maxHeaderBytes);
	}

	private static void inTransaction(OutboxPublisher publisher, Consumer<OutboxPublisher> work) {
		new TransactionTemplate(new DataSourceTransactionManager(schema.dataSource()))
			.executeWithoutResult((status) -> work.accept(publisher));
	}

	@MessageType(TYPE)
	record Validated(int line) {
	}

	@MessageType("test.nul\0type")
	record NulType() {
	}

	@MessageType("test.lone\uD800type")
	record SurrogateType() {
	}

	@MessageType(TYPE)
	record Named(String name) {
	}

	@MessageType(TYPE)
	record Measured(double value, double low) {
	}

}
