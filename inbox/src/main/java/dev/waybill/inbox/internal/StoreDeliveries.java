package dev.waybill.inbox.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.CurrentStore;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.store.WaybillStore;

/**
 * Hands a delivery of another store (its {@value PublishOptions#STORE_HEADER} header) to the
 * inbox of that store: its inbox row, its handler's transaction and what the handler publishes are
 * that store's ({@link CurrentStore}). A delivery that names a store this service does not have
 * goes to the error queue with the reason; one without the header is the default store's, and is
 * handled as the default store's work too, so that a store sharing its DataSource is not a question.
 *
 * @since 0.1
 */
public final class StoreDeliveries {

	private final Predicate<String> registered;

	private final Function<String, InboxProcessor> inboxes;

	private final Map<String, InboxProcessor> created = new ConcurrentHashMap<>();

	/**
	 * Creates the routing.
	 * @param registered whether a store of that name is registered now
	 * @param inboxes creates the inbox of a registered store other than the default, by its name
	 */
	public StoreDeliveries(Predicate<String> registered, Function<String, InboxProcessor> inboxes) {
		this.registered = registered;
		this.inboxes = inboxes;
	}

	/**
	 * Returns the store a delivery names.
	 * @param message the delivery
	 * @return the store's name, or {@literal null} for the default store
	 */
	static @Nullable String storeOf(InboundMessage message) {
		return (message.headers().get(PublishOptions.STORE_HEADER) instanceof String store && !store.isEmpty()) ? store
				: null;
	}

	/**
	 * Handles a delivery in the inbox of its store, as that store's work.
	 * @param consumer the consumer
	 * @param message the delivery
	 * @param defaultInbox handles a delivery of the default store
	 * @return what was committed
	 * @throws UnrecordableDeliveryException when no store of the name it carries is registered
	 */
	InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message,
			BiFunction<ConsumerRegistration<?>, InboundMessage, InboxOutcome> defaultInbox) {
		String store = storeOf(message);
		if (store == null) {
			return CurrentStore.during(WaybillStore.DEFAULT_NAME, () -> defaultInbox.apply(consumer, message));
		}
		InboxProcessor inbox = inboxOf(store);
		return CurrentStore.during(store, () -> inbox.process(consumer, message));
	}

	/**
	 * Handles deliveries, those of each store in its inbox, in the order they came within a store.
	 * @param deliveries the deliveries
	 * @param defaultInbox handles the default store's
	 * @return what happened to each, at the same index
	 */
	List<DeliveryResult> processBatch(List<InboxDelivery> deliveries,
			Function<List<InboxDelivery>, List<DeliveryResult>> defaultInbox) {
		Map<@Nullable String, List<Integer>> byStore = new LinkedHashMap<>();
		for (int i = 0; i < deliveries.size(); i++) {
			byStore.computeIfAbsent(storeOf(deliveries.get(i).message()), (s) -> new ArrayList<>()).add(i);
		}
		if (byStore.size() == 1 && byStore.containsKey(null)) {
			return CurrentStore.during(WaybillStore.DEFAULT_NAME, () -> defaultInbox.apply(deliveries));
		}
		DeliveryResult[] results = new DeliveryResult[deliveries.size()];
		byStore.forEach((store, indexes) -> {
			List<InboxDelivery> ofStore = indexes.stream().map(deliveries::get).toList();
			List<DeliveryResult> handled;
			if (store == null) {
				handled = CurrentStore.during(WaybillStore.DEFAULT_NAME, () -> defaultInbox.apply(ofStore));
			}
			else {
				try {
					InboxProcessor inbox = inboxOf(store);
					handled = CurrentStore.during(store, () -> inbox.processBatch(ofStore));
				}
				catch (UnrecordableDeliveryException ex) {
					handled = ofStore.stream().map((delivery) -> DeliveryResult.failed(ex)).toList();
				}
			}
			for (int i = 0; i < indexes.size(); i++) {
				results[indexes.get(i)] = handled.get(i);
			}
		});
		return List.of(results);
	}

	/**
	 * Whether a consumer received a message in any store whose inbox this service opened.
	 * @param consumer the consumer
	 * @param messageId the message id
	 * @return whether one of those inboxes has it
	 */
	boolean received(ConsumerRegistration<?> consumer, String messageId) {
		for (InboxProcessor inbox : this.created.values()) {
			if (inbox.received(consumer, messageId)) {
				return true;
			}
		}
		return false;
	}

	private InboxProcessor inboxOf(String store) {
		if (!this.registered.test(store)) {
			throw new UnrecordableDeliveryException("The message names store '" + store + "' ("
					+ PublishOptions.STORE_HEADER + "), which this service has not registered; register it "
					+ "(waybill.stores." + store + ".*) and move the message back from the error queue",
					new IllegalStateException("no store '" + store + "'"));
		}
		return this.created.computeIfAbsent(store, this.inboxes);
	}

}
