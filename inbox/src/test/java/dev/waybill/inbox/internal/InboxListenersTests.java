package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThatNoException;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;

/**
 * {@link InboxListeners}: a listener that throws on an event never reaches the processor.
 */
class InboxListenersTests {

	private final ConsumerRegistration<String> consumer = ConsumerRegistration.of("orders", String.class,
			(payload, context) -> {
			});

	private final InboundMessage message = new InboundMessage(UUID.randomUUID().toString(), "order",
			"application/json", Map.of(), "{}".getBytes(StandardCharsets.UTF_8), null, null, "orders.exchange",
			"orders");

	@Test
	void aListenerThatThrowsOnEveryEventIsLoggedNotPropagated() {
		InboxListeners listeners = new InboxListeners(new ThrowingListener());
		assertThatNoException().isThrownBy(() -> {
			listeners.started(this.consumer, this.message);
			listeners.delivered(this.consumer, this.message, InboxOutcome.PROCESSED);
			listeners.finished(this.consumer, this.message, null, 1);
			listeners.rolledBack(this.consumer, this.message);
			listeners.poisoned(this.consumer, this.message, "unreadable");
		});
	}

	private static final class ThrowingListener implements InboxListener {

		@Override
		public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
			throw new IllegalStateException("delivered");
		}

		@Override
		public void started(ConsumerRegistration<?> consumer, InboundMessage message) {
			throw new IllegalStateException("started");
		}

		@Override
		public void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
				long nanos) {
			throw new IllegalStateException("finished");
		}

		@Override
		public void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
			throw new IllegalStateException("poisoned");
		}

		@Override
		public void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
			throw new IllegalStateException("rolled back");
		}

	}

}
