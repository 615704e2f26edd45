package dev.waybill.console;

import java.security.Principal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.waybill.outbox.store.StoreAdmins;

/**
 * The {@code waybill} endpoint with its write operations, created instead of
 * {@link WaybillEndpoint} when {@code waybill.admin.write-enabled=true}. Every change is audited
 * with the name of the authenticated principal ({@code anonymous} without one). Each takes a JSON
 * body whose values are strings (Actuator binds nothing else); {@code ids} is a comma-separated list:
 * <ul>
 * <li>{@code POST /actuator/waybill/scopes/redrive} {@code {"ids": "id1,id2"}}: redrives dead scopes;</li>
 * <li>{@code POST /actuator/waybill/scopes/delete} {@code {"ids": "id1,id2"}}: deletes dead scopes;</li>
 * <li>{@code POST /actuator/waybill/error-queues/redrive} {@code {"queue": "...", "ids": "id1,id2"}}:
 * moves error-queue messages back to their queue through the outbox; without {@code ids}, all;</li>
 * <li>{@code POST /actuator/waybill/error-queues/discard} {@code {"queue": "...", "ids": "id1,id2"}}:
 * drops error-queue messages.</li>
 * </ul>
 *
 * @since 0.1
 */
@Endpoint(id = "waybill")
public class WaybillWritableEndpoint extends WaybillEndpoint {

	/** The actor recorded when the request is not authenticated. */
	public static final String ANONYMOUS = "anonymous";

	/**
	 * Creates the endpoint.
	 * @param outbox the outbox admin
	 * @param consumers the consumer side, or {@literal null} in a producer-only application
	 */
	public WaybillWritableEndpoint(dev.waybill.outbox.OutboxAdmin outbox, @Nullable ConsumerSide consumers) {
		super(outbox, consumers);
	}

	/**
	 * Creates the endpoint: each change of scopes is made in the store its {@code store} names.
	 * @param stores the outbox admin of each store
	 * @param consumers the consumer side, or {@literal null} in a producer-only application
	 * @since 0.1
	 */
	public WaybillWritableEndpoint(StoreAdmins stores, @Nullable ConsumerSide consumers) {
		super(stores, consumers);
	}

	/**
	 * Runs a change.
	 * @param section {@code scopes} or {@code error-queues}
	 * @param action {@code redrive}, {@code delete} (scopes) or {@code discard} (error queues)
	 * @param ids the scope or message ids, separated by commas
	 * @param queue for error queues: the consumer's queue
	 * @param store for scopes: the store they are in, the default one when not given; a scope of
	 * another store is not changed
	 * @param security who asks
	 * @return what was changed: for scopes {@code affected}, for error queues the ids moved or dropped
	 * ({@code messages}) and the chosen ones not found ({@code notFound}), with the number of distinct
	 * ids asked for ({@code requested}); or a 400 response whose body's {@code error} says what is
	 * wrong with the request
	 */
	@WriteOperation
	public Object change(@Selector String section, @Selector String action, @Nullable String ids,
			@Nullable String queue, @Nullable String store, SecurityContext security) {
		return answer(() -> doChange(section, action, ids, queue, store, security));
	}

	private Map<String, Object> doChange(String section, String action, @Nullable String ids, @Nullable String queue,
			@Nullable String store, @Nullable SecurityContext security) {
		String actor = actor(security);
		List<String> idList = (ids != null)
				? Arrays.stream(ids.split(",")).map(String::trim).filter((id) -> !id.isEmpty()).distinct().toList() : null;
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("section", section);
		result.put("action", action);
		result.put("actor", actor);
		if (idList != null) {
			result.put("requested", idList.size());
		}
		switch (section + "/" + action) {
			case "scopes/redrive" -> result.put("affected", argument(() -> outbox(store).redrive(uuids(idList), actor)));
			case "scopes/delete" -> result.put("affected", argument(() -> outbox(store).deleteDead(uuids(idList), actor)));
			case "error-queues/redrive" -> messages(result, idList,
					argument(() -> consumers().redrive(required(queue), idList, actor)));
			case "error-queues/discard" -> messages(result, idList,
					argument(() -> consumers().discard(required(queue), required(idList), actor)));
			default -> throw new InvalidEndpointRequestException("Unknown change '" + section + "/" + action
					+ "'; use scopes/redrive, scopes/delete, error-queues/redrive or error-queues/discard",
					"Unknown change");
		}
		return result;
	}

	/**
	 * Puts the ids taken and, when ids were chosen, those not found: already gone, or held by another
	 * reader of the error queue (a peek) for longer than the take waited.
	 */
	private static void messages(Map<String, Object> result, @Nullable List<String> requested, List<String> taken) {
		result.put("messages", taken);
		if (requested != null) {
			result.put("notFound", requested.stream().filter((id) -> !taken.contains(id)).toList());
		}
	}

	@Override
	protected boolean writeEnabled() {
		return true;
	}

	private static String actor(@Nullable SecurityContext security) {
		Principal principal = (security != null) ? security.getPrincipal() : null;
		return (principal != null && principal.getName() != null) ? principal.getName() : ANONYMOUS;
	}

	private static List<java.util.UUID> uuids(@Nullable List<String> ids) {
		return required(ids).stream().map(WaybillEndpoint::uuid).toList();
	}

	private static <T> T required(@Nullable T value) {
		if (value == null) {
			throw new InvalidEndpointRequestException("The body must name the queue and the ids", "Missing parameter");
		}
		return value;
	}

}
