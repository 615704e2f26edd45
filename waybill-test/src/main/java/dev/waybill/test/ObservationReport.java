package dev.waybill.test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.test.Observations.Committed;
import dev.waybill.test.Observations.Consumed;

/**
 * Writes out everything observed since the last reset and what is still under way, the text
 * {@link WaybillTestHarness#describe()} returns and a timed-out wait fails with. Lists are cut at
 * {@value UnderWay#SHOWN_PER_KIND} entries of a kind, bodies at {@value #SHOWN_BODY_CHARACTERS}
 * characters, so that a busy test still gives a readable failure.
 *
 * @since 0.1
 */
final class ObservationReport {

	static final int SHOWN_BODY_CHARACTERS = 200;

	private final Observations observations;

	private final UnderWay underWay;

	private final @Nullable InMemoryTransport inMemory;

	ObservationReport(Observations observations, UnderWay underWay, @Nullable InMemoryTransport inMemory) {
		this.observations = observations;
		this.underWay = underWay;
		this.inMemory = inMemory;
	}

	String describe() {
		StringBuilder text = new StringBuilder("Waybill observed:");
		List<String> published = new ArrayList<>();
		List<String> sent = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			(committed.sent() ? sent : published).add(describe(committed.message()));
		}
		section(text, "published (committed)", published);
		section(text, "sent (committed)", sent);
		section(text, "relayed", this.observations.relayed.stream().map((r) -> describe(r.message())).toList());
		section(text, "relay retries", this.observations.relayRetried.stream()
			.map((r) -> describe(r.message()) + " (" + r.error() + ")").toList());
		section(text, "dead-lettered by the relay", this.observations.deadLettered.stream()
			.map((r) -> describe(r.message()) + " (" + r.error() + ")").toList());
		section(text, "deliveries", this.observations.consumed.stream().map(ObservationReport::describe).toList());
		if (this.inMemory != null) {
			section(text, "unrouted (in memory, no local consumer)",
					this.inMemory.unrouted().stream().map(ObservationReport::describe).toList());
		}
		text.append("\nunder way: ").append(this.underWay.describe());
		return text.toString();
	}

	private static String describe(Consumed consumed) {
		InboundMessage message = consumed.message();
		return consumed.outcome() + " by '" + consumed.consumer().queue() + "' ("
				+ ObservationReader.handlerClass(consumed.consumer()).getSimpleName() + ")"
				+ (consumed.byHarness() ? " [delivered by the test]" : "") + ": " + message.messageType() + " "
				+ message.messageId() + " " + body(message.body());
	}

	private static String describe(OutboxMessage message) {
		return message.messageType() + " " + message.messageId() + " -> '" + message.destination() + "'"
				+ (message.routingKey().isEmpty() ? "" : " '" + message.routingKey() + "'") + " " + body(message.body());
	}

	static String body(byte[] body) {
		String text = new String(body, StandardCharsets.UTF_8);
		return (text.length() > SHOWN_BODY_CHARACTERS) ? text.substring(0, SHOWN_BODY_CHARACTERS) + "..." : text;
	}

	private static void section(StringBuilder text, String title, List<String> lines) {
		int shown = UnderWay.SHOWN_PER_KIND;
		text.append("\n  ").append(title).append(" (").append(lines.size()).append(")");
		text.append(lines.isEmpty() ? ": none" : ":");
		lines.stream().limit(shown).forEach((line) -> text.append("\n    ").append(line));
		if (lines.size() > shown) {
			text.append("\n    ... ").append(lines.size() - shown).append(" more");
		}
	}

}
