package dev.waybill.console;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.waybill.kernel.BodyPreviews;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.ScopeStatus;
import dev.waybill.outbox.store.StoreAdmins;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The Actuator endpoint {@code waybill}: what the outbox, the inbox and the error queues hold, read
 * only. {@link WaybillWritableEndpoint} adds the changes when {@code waybill.admin.write-enabled=true}.
 * <ul>
 * <li>{@code GET /actuator/waybill}: the backlog and lag, the dead scopes' count, every error queue's
 * depth, and whether writes are enabled;</li>
 * <li>{@code GET /actuator/waybill/scopes?status=dead|pending&destination=&offset=&limit=}: a page
 * of scopes, oldest first;</li>
 * <li>{@code GET /actuator/waybill/scopes/{id}?max=&previewBytes=}: one scope and its messages;</li>
 * <li>{@code GET /actuator/waybill/error-queues}: the error queues and their depth;</li>
 * <li>{@code GET /actuator/waybill/error-queues/{queue}?max=&previewBytes=}: the first messages
 * of a consumer's error queue, put back after reading;</li>
 * <li>{@code GET /actuator/waybill/messages/{id}}: what every consumer did with a message id.</li>
 * </ul>
 * The overview and the scope requests take {@code store=<name>} and then work in that store only
 * (see {@link dev.waybill.outbox.store.StoreAdmins}); without it, in the default store.
 * A request the endpoint refuses (a bad id, an unknown queue, status, section or store, a value out
 * of range) is answered 400 with the reason in the body: {@code {"status": 400, "error": "..."}}.
 *
 * @since 0.1
 */
@Endpoint(id = "waybill")
public class WaybillEndpoint {

	static final int DEFAULT_LIMIT = 50;

	static final int DEFAULT_PEEK = 20;

	private final StoreAdmins stores;

	private final @Nullable ConsumerSide consumers;

	private final Clock clock;

	/**
	 * Creates the endpoint of an application with one store.
	 * @param outbox the outbox admin
	 * @param consumers the consumer side, or {@literal null} in a producer-only application
	 */
	public WaybillEndpoint(OutboxAdmin outbox, @Nullable ConsumerSide consumers) {
		this(defaultOnly(Objects.requireNonNull(outbox, "outbox must not be null")), consumers);
	}

	/**
	 * Creates the endpoint: each operation on scopes works in the store its {@code store} parameter
	 * names, the default store without it.
	 * @param stores the outbox admin of each store
	 * @param consumers the consumer side, or {@literal null} in a producer-only application
	 * @since 0.1
	 */
	public WaybillEndpoint(StoreAdmins stores, @Nullable ConsumerSide consumers) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.consumers = consumers;
		this.clock = Clock.systemUTC();
	}

	private static StoreAdmins defaultOnly(OutboxAdmin outbox) {
		return new StoreAdmins() {
			@Override
			public List<String> names() {
				return List.of(WaybillStore.DEFAULT_NAME);
			}

			@Override
			public OutboxAdmin outbox(String store) {
				if (!WaybillStore.DEFAULT_NAME.equals(store)) {
					throw new UnknownStoreException("No store '" + store + "' is registered; registered stores: "
							+ names());
				}
				return outbox;
			}
		};
	}

	/**
	 * Returns the overview of a store.
	 * @param store the store, the default one when not given
	 * @return the stores there are, the store's backlog, lag and dead scopes, and the error queues;
	 * or a 400 response for a store that is not registered
	 */
	@ReadOperation
	public Object overview(@Nullable String store) {
		return answer(() -> overviewOf(store));
	}

	private Map<String, Object> overviewOf(@Nullable String store) {
		Instant now = this.clock.instant();
		OutboxStats stats = outbox(store).stats();
		Map<String, Object> outbox = new LinkedHashMap<>();
		outbox.put("pendingScopes", stats.pendingScopes());
		outbox.put("pendingMessages", stats.pendingMessages());
		outbox.put("dueScopes", stats.dueScopes());
		outbox.put("deadScopes", stats.deadScopes());
		outbox.put("oldestPending", stats.oldestPending());
		outbox.put("lagMillis", stats.lag(now).toMillis());
		outbox.put("oldestDueForMillis", stats.oldestDueFor().toMillis());
		Map<String, Object> overview = new LinkedHashMap<>();
		overview.put("now", now);
		overview.put("writeEnabled", writeEnabled());
		overview.put("consumerSide", this.consumers != null);
		overview.put("stores", this.stores.names());
		overview.put("store", (store != null && !store.isBlank()) ? store : WaybillStore.DEFAULT_NAME);
		overview.put("outbox", outbox);
		overview.put("errorQueues", errorQueuesOrProblem());
		return overview;
	}

	/**
	 * Returns a list: {@code scopes} or {@code error-queues}.
	 * @param section {@code scopes} or {@code error-queues}
	 * @param status for scopes: {@code dead} (default) or {@code pending}
	 * @param destination for scopes: only those with a message for this exchange
	 * @param offset for scopes: how many to skip
	 * @param limit for scopes: the page size, at most 500
	 * @param store for scopes: the store, the default one when not given
	 * @return the list, or a 400 response whose body's {@code error} says what is wrong with the request
	 */
	@ReadOperation
	public Object list(@Selector String section, @Nullable String status, @Nullable String destination,
			@Nullable String offset, @Nullable String limit, @Nullable String store) {
		return answer(() -> switch (section) {
			case "scopes" -> argument(() -> outbox(store).scopes(ScopeStatus.parse((status != null) ? status : "dead"),
					blankToNull(destination), number("offset", offset, 0), number("limit", limit, DEFAULT_LIMIT)));
			case "error-queues" -> errorQueuesOrProblem();
			default -> throw new InvalidEndpointRequestException("Unknown section '" + section
					+ "'; use scopes or error-queues", "Unknown section");
		});
	}

	/**
	 * Returns one item: a scope ({@code scopes/{id}}), an error queue's first messages
	 * ({@code error-queues/{queue}}) or a message's inbox entries ({@code messages/{id}}).
	 * @param section {@code scopes}, {@code error-queues} or {@code messages}
	 * @param key the scope id, queue name or message id
	 * @param max the most messages to return (scopes: 1 to 100, default 20; error queues: 1 to 100, default 20)
	 * @param previewBytes the most body bytes per message (default 4096)
	 * @param store for scopes and messages: the store, the default one when not given
	 * @return the item, {@literal null} (404) when there is none, or a 400 response whose body's
	 * {@code error} says what is wrong with the request
	 */
	@ReadOperation
	public @Nullable Object item(@Selector String section, @Selector String key, @Nullable String max,
			@Nullable String previewBytes, @Nullable String store) {
		return answer(() -> switch (section) {
			case "scopes" -> argument(() -> outbox(store).scope(uuid(key), number("max", max, DEFAULT_PEEK),
					number("previewBytes", previewBytes, BodyPreviews.DEFAULT_PREVIEW_BYTES)).orElse(null));
			case "error-queues" -> argument(() -> consumers().peek(key, number("max", max, DEFAULT_PEEK),
					number("previewBytes", previewBytes, BodyPreviews.DEFAULT_PREVIEW_BYTES)));
			case "messages" -> argument(() -> inStore(store, (name) -> consumers().lookup(uuid(key), name)));
			default -> throw new InvalidEndpointRequestException("Unknown section '" + section
					+ "'; use scopes, error-queues or messages", "Unknown section");
		});
	}

	/**
	 * Returns whether the write operations are on.
	 * @return whether this endpoint offers writes
	 */
	protected boolean writeEnabled() {
		return false;
	}

	/**
	 * Returns the outbox admin of a store.
	 * @param store the store, the default one when {@literal null} or blank
	 * @return its admin
	 * @throws InvalidEndpointRequestException when no store of that name is registered
	 */
	protected final OutboxAdmin outbox(@Nullable String store) {
		return inStore(store, this.stores::outbox);
	}

	/**
	 * Does what a request asks of a store.
	 * @param <T> what it answers
	 * @param store the store, the default one when {@literal null} or blank
	 * @param work what to do in the store, given its name
	 * @return what the work answered
	 * @throws InvalidEndpointRequestException when no store of that name is registered
	 */
	protected final <T> T inStore(@Nullable String store, Function<String, T> work) {
		try {
			return work.apply((store != null && !store.isBlank()) ? store.trim() : WaybillStore.DEFAULT_NAME);
		}
		catch (UnknownStoreException ex) {
			throw new InvalidEndpointRequestException(String.valueOf(ex.getMessage()), "Unknown store");
		}
	}

	/**
	 * Returns the consumer side.
	 * @return the consumer side
	 * @throws InvalidEndpointRequestException in a producer-only application
	 */
	protected final ConsumerSide consumers() {
		if (this.consumers == null) {
			throw new InvalidEndpointRequestException("This application consumes no messages: it has no inbox "
					+ "and no error queues", "No consumer side");
		}
		return this.consumers;
	}

	private Object errorQueuesOrProblem() {
		if (this.consumers == null) {
			return List.of();
		}
		try {
			return this.consumers.errorQueues();
		}
		catch (RuntimeException ex) {
			// the page still shows the outbox while the broker is down
			return Map.of("problem", String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * Reads a whole-number parameter itself: Actuator would answer a value it cannot convert
	 * ({@code max=abc}) with a 400 that does not say which parameter was wrong.
	 */
	static int number(String name, @Nullable String text, int absent) {
		if (text == null || text.isBlank()) {
			return absent;
		}
		try {
			return Integer.parseInt(text.trim());
		}
		catch (NumberFormatException ex) {
			String reason = text.trim().matches("[+-]?[0-9]+") ? name + " is out of range: '" + text + "'"
					: name + " must be a whole number, not '" + text + "'";
			throw new InvalidEndpointRequestException(reason, "Not a number");
		}
	}

	static UUID uuid(String text) {
		try {
			return UUID.fromString(text.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException("'" + text + "' is not a UUID", "Not a UUID");
		}
	}

	/**
	 * Runs an operation, turning a rejected request into a 400 response whose body carries the reason
	 * as {@code {"error": "..."}}. Actuator's own answer to the exception is a 400 whose body drops
	 * the reason (Spring Boot's {@code server.error.include-message} is {@code never} by default), so
	 * the operator would never learn what was wrong. The reasons are Waybill's own texts about the
	 * request (a bad id, an unknown queue or status, a value out of range), nothing internal.
	 */
	static @Nullable Object answer(java.util.function.Supplier<@Nullable Object> operation) {
		try {
			return operation.get();
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex.getMessage());
		}
	}

	static WebEndpointResponse<Map<String, Object>> badRequest(@Nullable String reason) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", WebEndpointResponse.STATUS_BAD_REQUEST);
		body.put("error", (reason != null) ? reason : "Bad request");
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * Runs a call, turning a rejected argument into a 400 response.
	 */
	static <T> T argument(java.util.function.Supplier<T> call) {
		try {
			return call.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(String.valueOf(ex.getMessage()), "Invalid argument");
		}
	}

	static @Nullable String blankToNull(@Nullable String text) {
		return (text == null || text.isBlank()) ? null : text;
	}

}
