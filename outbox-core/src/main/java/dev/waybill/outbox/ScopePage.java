package dev.waybill.outbox;

import java.util.List;

/**
 * A page of scopes, oldest first.
 *
 * @param scopes the scopes of this page
 * @param total how many scopes match in all
 * @param offset how many matching scopes come before this page
 * @param limit the page size asked for
 * @since 0.1
 */
public record ScopePage(List<ScopeSummary> scopes, long total, int offset, int limit) {

	/**
	 * Copies the list.
	 */
	public ScopePage {
		scopes = List.copyOf(scopes);
	}

}
