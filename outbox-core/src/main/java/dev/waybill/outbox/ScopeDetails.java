package dev.waybill.outbox;

import java.util.List;

/**
 * One scope with its first messages.
 *
 * @param scope the scope
 * @param messages its messages in publish order, at most as many as asked for
 * @since 0.1
 */
public record ScopeDetails(ScopeSummary scope, List<MessagePreview> messages) {

	/**
	 * Copies the list.
	 */
	public ScopeDetails {
		messages = List.copyOf(messages);
	}

}
