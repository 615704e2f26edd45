package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.internal.DefaultOutboxMessageFactory;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.spi.OutboxMessage;

class MessageChecksTests {

	@Test
	void aMessageTypeOver255BytesOrWithANulIsRefusedWhateverNamedIt() {
		String type = "ü".repeat(128); // 128 characters, 256 bytes
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> MessageChecks.check(message(type, "dest"), Long.MAX_VALUE))
			.withMessageContaining("the message type is 256 bytes in UTF-8; AMQP allows at most 255 bytes");
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> MessageChecks.check(message("a\0b", "dest"), Long.MAX_VALUE))
			.withMessageStartingWith("Cannot publish message of type 'a\\u0000b': ")
			.withMessageContaining("the message type contains a NUL character (U+0000) at index 1");
		assertThatNoException().isThrownBy(() -> MessageChecks.check(message("ü".repeat(127) + "x", "dest"), Long.MAX_VALUE));
	}

	@Test
	void anUnpairedSurrogateIsRefusedInEveryStringFieldNamingTheFieldAndIndex() {
		String lone = "hostile\uD800";
		assertSurrogateRefused(message(lone, "dest"), "the message type contains an unpaired surrogate (U+D800) at index 7");
		assertSurrogateRefused(message("t", lone), "the destination contains an unpaired surrogate (U+D800) at index 7");
		assertSurrogateRefused(message("t", "dest", (m) -> m.routingKey = "\uDC00eu"),
				"the routing key contains an unpaired surrogate (U+DC00) at index 0");
		assertSurrogateRefused(message("t", "dest", (m) -> m.contentType = "application/json\uD83D"),
				"the content type contains an unpaired surrogate (U+D83D) at index 16");
		assertSurrogateRefused(message("t", "dest", (m) -> m.correlationId = lone),
				"the correlation id contains an unpaired surrogate (U+D800) at index 7");
		assertSurrogateRefused(message("t", "dest", (m) -> m.conversationId = "c\uDE00"),
				"the conversation id contains an unpaired surrogate (U+DE00) at index 1");
		assertSurrogateRefused(message("t", "dest", (m) -> m.headers = Map.of(lone, "v")),
				"the header name 'hostile\\uD800' contains an unpaired surrogate (U+D800) at index 7");
		assertSurrogateRefused(message("t", "dest", (m) -> m.headers = Map.of("tenant", lone)),
				"the value of header 'tenant' contains an unpaired surrogate (U+D800) at index 7");
		assertSurrogateRefused(message("t", "dest", (m) -> m.headers = Map.of("waybill-ordering-key", "Order#\uDBFF")),
				"the ordering key (header 'waybill-ordering-key') contains an unpaired surrogate (U+DBFF) at index 6");
		// two high surrogates: the first is unpaired; a pair followed by a lone low one: the third
		assertSurrogateRefused(message("t", "\uD83D\uD83D\uDE00"), "the destination contains an unpaired surrogate (U+D83D) at index 0");
		assertSurrogateRefused(message("t", "\uD83D\uDE00\uDE00"), "the destination contains an unpaired surrogate (U+DE00) at index 2");
		// well-formed pairs (emoji) are fine everywhere
		String emoji = "orders-\uD83D\uDE00";
		assertThatNoException().isThrownBy(() -> MessageChecks.check(message("t", emoji, (m) -> {
			m.routingKey = emoji;
			m.correlationId = emoji;
			m.conversationId = emoji;
			m.headers = Map.of(emoji, emoji);
		}), Long.MAX_VALUE));
	}

	@Test
	void aNotBeforeTimeOrExpiryOutsideTheYears1To9999IsRefusedAtCreateNamingTheOption() {
		String range = "the outbox stores times from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
		for (Instant bad : new Instant[] { Instant.MAX, Instant.MIN, Instant.parse("+300000-01-01T00:00:00Z"),
				Instant.parse("+294277-01-01T00:00:00Z"), Instant.parse("-5000-01-01T00:00:00Z"),
				Instant.parse("+10000-01-01T00:00:00Z"), Instant.parse("0000-12-31T23:59:59.999999999Z") }) {
			assertThatExceptionOfType(InvalidMessageException.class).as(bad.toString())
				.isThrownBy(() -> create((o) -> o.notBefore(bad)))
				.withMessage("Cannot publish message of type '" + Event.class.getCanonicalName()
						+ "': the not-before time (notBefore, or the time given to schedule) is " + bad + "; " + range);
			// a time-to-live on top names the not-before time, not the time-to-live
			assertThatExceptionOfType(InvalidMessageException.class).as(bad.toString())
				.isThrownBy(() -> create((o) -> o.notBefore(bad).timeToLive(Duration.ofSeconds(1))))
				.withMessageContaining("the not-before time (notBefore, or the time given to schedule) is " + bad);
		}
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> create((o) -> o.timeToLive(Duration.ofMillis(Long.MAX_VALUE))))
			.withMessageContaining("the timeToLive PT2562047788015H12M55.807S from " + NOW
					+ " ends at +292279051-07-13T23:12:55.807Z; " + range);
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> create((o) -> o.timeToLive(Duration.ofSeconds(Long.MAX_VALUE))))
			.withMessageContaining("the timeToLive PT2562047788015215H30M7S from " + NOW
					+ " ends beyond any representable time; " + range);
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> create((o) -> o.notBefore(Instant.parse("9999-12-31T00:00:00Z")).timeToLive(Duration.ofDays(1))))
			.withMessageContaining("the timeToLive PT24H from 9999-12-31T00:00:00Z ends at +10000-01-01T00:00:00Z; " + range);
		// the bounds themselves are stored
		assertThat(create((o) -> o.notBefore(Instant.parse("0001-01-01T00:00:00Z"))).notBefore())
			.isEqualTo(Instant.parse("0001-01-01T00:00:00Z"));
		assertThat(create((o) -> o.notBefore(Instant.parse("9999-12-31T23:59:59.999999Z"))).notBefore())
			.isEqualTo(Instant.parse("9999-12-31T23:59:59.999999Z"));
		assertThat(create((o) -> o.timeToLive(Duration.ofDays(365L * 7000))).expiresAt())
			.isEqualTo(NOW.plus(Duration.ofDays(365L * 7000)));
		assertThat(create((o) -> o.routingKey("eu")).expiresAt()).isNull();
	}

	@Test
	void shownEscapesUnpairedSurrogatesButKeepsPairs() {
		assertThat(MessageChecks.shown("a\uD800b\uD83D\uDE00\uDC00\0")).isEqualTo("a\\uD800b\uD83D\uDE00\\uDC00\\u0000");
	}

	@Test
	void utf8LengthMatchesTheJdkEncoderForWellFormedText() {
		for (String text : new String[] { "", "ascii", "Zürich", "日本語", "emoji 😀 pair", "\u0080\u07ff\u0800\uffff" }) {
			assertThat(MessageChecks.utf8Length(text)).as(text).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
		}
	}

	@Test
	void headersAnInboundMessageCarriesAreSizedByTheirEncodingNotTheirText() {
		long none = MessageChecks.headerBytes(withHeaders(Map.of()));
		// a byte array's text is "[B@1234abcd"; a table's and an array's leave out the tags and lengths
		assertThat(MessageChecks.headerBytes(withHeaders(Map.of("b", new byte[100_000]))) - none)
			.isEqualTo(2 + 1 + 4 + 100_000);
		assertThat(MessageChecks.headerBytes(withHeaders(Map.of("t", Map.of("k", new byte[1_000])))) - none)
			.isEqualTo(2 + 1 + 4 + (2 + 1 + 4 + 1_000));
		assertThat(MessageChecks.headerBytes(withHeaders(Map.of("a", java.util.List.of("x", "y")))) - none)
			.isEqualTo(2 + 1 + 4 + 2 * (1 + 4 + 1));
		assertThat(MessageChecks.headerBytes(withHeaders(Map.of("d", new java.util.Date()))) - none).isEqualTo(2 + 1 + 8);
	}

	@Test
	void aKeyedMessageIsSizedWithTheHeaderTheRelayLinksItToItsPredecessorWith() {
		OutboxMessage keyed = withHeaders(Map.of(PublishOptions.ORDERING_KEY_HEADER, "order-1"));
		OutboxMessage linked = new OutboxMessage(keyed.messageId(), "dest", "", "type", "application/json",
				Map.of(PublishOptions.ORDERING_KEY_HEADER, "order-1", PublishOptions.ORDERING_PREVIOUS_HEADER,
						UUID.randomUUID().toString()), new byte[0], null, null, null, Instant.now(), null);

		assertThat(MessageChecks.headerBytes(keyed)).isEqualTo(MessageChecks.headerBytes(linked));
		assertThat(MessageChecks.headerBytes(withHeaders(Map.of()))).as("unkeyed: never linked")
			.isLessThan(MessageChecks.headerBytes(keyed) - 40);
	}

	private static OutboxMessage withHeaders(Map<String, Object> headers) {
		return new OutboxMessage(UUID.randomUUID(), "dest", "", "type", "application/json", headers, new byte[0], null,
				null, null, Instant.now(), null);
	}

	private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");

	private static OutboxMessage create(Consumer<PublishOptions> options) {
		return new DefaultOutboxMessageFactory(new JacksonMessageSerializer(), 1 << 20, Clock.fixed(NOW, ZoneOffset.UTC),
				"test-host", new OutboxBacklog(), 0, () -> Long.MAX_VALUE)
			.create(null, new Event(1), options);
	}

	record Event(int id) {
	}

	private static OutboxMessage message(String type, String destination) {
		return new OutboxMessage(UUID.randomUUID(), destination, "", type, "application/json", Map.of(), new byte[0],
				null, null, null, Instant.now(), null);
	}

	private static OutboxMessage message(String type, String destination, Consumer<Fields> fields) {
		Fields f = new Fields();
		fields.accept(f);
		return new OutboxMessage(UUID.randomUUID(), destination, f.routingKey, type, f.contentType, f.headers,
				new byte[0], f.correlationId, f.conversationId, null, Instant.now(), f.notBefore);
	}

	private static void assertSurrogateRefused(OutboxMessage message, String expected) {
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> MessageChecks.check(message, Long.MAX_VALUE))
			.withMessageContaining(expected)
			.withMessageContaining("it is not valid Unicode, and PostgreSQL would store it as '?'");
	}

	private static final class Fields {

		String routingKey = "";

		String contentType = "application/json";

		Map<String, Object> headers = Map.of();

		String correlationId;

		String conversationId;

		Instant notBefore;

	}

}
