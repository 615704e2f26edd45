package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.kernel.MessageChecks;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * {@link Forwarding#cut}: how a fault's unbounded texts are bounded so its copy fits one AMQP frame;
 * and how a copy is fitted to the frame budget.
 */
class ForwardingTests {

	private static final long BUDGET = 131_064;

	private final ConsumerRegistration<String> consumer = ConsumerRegistration.of("orders", String.class,
			(payload, context) -> {
			});

	@Test
	void aCutToBytesKeepsWithinTheBytesAndSaysHowLongItWas() {
		String text = "\u00e9".repeat(1000); // two bytes each in UTF-8
		String cut = Forwarding.cutToBytes(text, 500);
		assertThat(cut).endsWith("... (1000 characters in all)");
		assertThat(MessageChecks.utf8Length(cut)).isLessThanOrEqualTo(500).isGreaterThan(480);
		assertThat(Forwarding.cutToBytes(text, 10)).isEmpty();
		assertThat(Forwarding.cutToBytes("short", 10)).isEqualTo("short");
	}

	@Test
	void aFaultCopyThatFitsKeepsEverything() {
		OutboxMessage copy = Forwarding.fault(UUID.randomUUID(), this.consumer, inbound(headers(10, 1000)),
				DeliveryFault.handlerFailed(new IllegalStateException("x".repeat(100_000))), 3, Instant.now(), BUDGET);
		assertThat(copy.headers()).containsKeys("h000", "h009").doesNotContainKey(InboxHeaders.DROPPED_HEADERS);
		assertThat(copy.headers().get(InboxHeaders.FAULT_MESSAGE).toString()).hasSizeLessThan(4_100);
	}

	@Test
	void aFaultCopyOverTheFrameHasItsStackTraceThenItsMessageShortened() {
		OutboxMessage copy = Forwarding.fault(UUID.randomUUID(), this.consumer, inbound(headers(127, 1000)),
				DeliveryFault.handlerFailed(new IllegalStateException("x".repeat(100_000))), 3, Instant.now(), BUDGET);
		assertThat(MessageChecks.headerBytes(copy)).isLessThanOrEqualTo(BUDGET);
		assertThat(copy.headers()).containsKeys("h000", "h126").doesNotContainKey(InboxHeaders.DROPPED_HEADERS);
		assertThat(copy.headers().get(InboxHeaders.FAULT_MESSAGE).toString()).startsWith("xxx")
			.endsWith("... (100000 characters in all)");
	}

	@Test
	void aFaultCopyWhoseInboundHeadersLeaveNoRoomGoesWithoutThemSayingSo() {
		DeliveryFault fault = DeliveryFault.poison("no handler for type 'other'", null);
		OutboxMessage copy = Forwarding.fault(UUID.randomUUID(), this.consumer, inbound(headers(130, 1000)), fault, 1,
				Instant.now(), BUDGET);
		assertThat(MessageChecks.headerBytes(copy)).isLessThanOrEqualTo(BUDGET);
		assertThat(copy.headers()).doesNotContainKey("h000")
			.containsEntry(InboxHeaders.FAULT_REASON, "no handler for type 'other'")
			.containsEntry(InboxHeaders.ORIGINAL_EXCHANGE, "orders.exchange");
		assertThat(copy.headers().get(InboxHeaders.DROPPED_HEADERS).toString()).startsWith("130 headers (");
	}

	@Test
	void aFaultCopyFitsEvenWithAByteArrayHeaderAsLargeAsTheFrame() {
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put(InboxHeaders.UNREADABLE_HEADERS, new byte[131_000]);
		OutboxMessage copy = Forwarding.fault(UUID.randomUUID(), this.consumer, inbound(headers),
				DeliveryFault.poison("unreadable headers", null), 1, Instant.now(), BUDGET);
		assertThat(MessageChecks.headerBytes(copy)).isLessThanOrEqualTo(BUDGET);
		assertThat(copy.headers()).doesNotContainKey(InboxHeaders.UNREADABLE_HEADERS)
			.containsKey(InboxHeaders.DROPPED_HEADERS);
	}

	@Test
	void aRedeliveryOverTheFrameIsTold() {
		assertThat(Forwarding.redeliveryTooLarge(this.consumer, inbound(headers(10, 1000)), Instant.now(), BUDGET))
			.isNull();
		assertThat(Forwarding.redeliveryTooLarge(this.consumer, inbound(headers(131, 1000)), Instant.now(), BUDGET))
			.startsWith("headers too large to forward for a redelivery (").contains(" bytes > 131064");
	}

	private static Map<String, Object> headers(int count, int length) {
		Map<String, Object> headers = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			headers.put(String.format("h%03d", i), "v".repeat(length));
		}
		return headers;
	}

	private static InboundMessage inbound(Map<String, Object> headers) {
		return new InboundMessage(UUID.randomUUID().toString(), "order", "application/json", headers,
				"{}".getBytes(StandardCharsets.UTF_8), null, null, "orders.exchange", "orders");
	}

	@Test
	void textWithinTheLimitIsKeptAsItIs() {
		assertThat(Forwarding.cut("declined: \0", 11)).isEqualTo("declined: \0");
	}

	@Test
	void longerTextIsCutAndSaysHowLongItWas() {
		assertThat(Forwarding.cut("abcdef", 3)).isEqualTo("abc... (6 characters in all)");
	}

	@Test
	void aCutNeverSplitsASurrogatePair() {
		String text = "ab\uD83D\uDE00cd"; // an emoji: two chars, one code point
		assertThat(Forwarding.cut(text, 3)).isEqualTo("ab... (6 characters in all)");
		assertThat(Forwarding.cut(text, 4)).isEqualTo("ab\uD83D\uDE00... (6 characters in all)");
	}

}
