package dev.ratelimit.web;

import java.nio.ByteBuffer;

import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.jspecify.annotations.Nullable;

/**
 * Reads a decoded body as it streams, for the numbers at a list of JSON Pointers,
 * keeping none of the body's bytes.
 */
interface BodyScanner {

	/**
	 * Scans the bytes between the buffer's position and its limit, moving the position.
	 * @return false once the body cannot be read as a whole, for {@link #failure()}
	 */
	boolean scan(ByteBuffer bytes);

	/**
	 * The body has ended.
	 * @return false when it cannot be read as a whole, for {@link #failure()}
	 */
	boolean end();

	/**
	 * Why the body cannot be read, once {@link #scan} or {@link #end} said so, else
	 * {@code null}.
	 */
	@Nullable Unreadable failure();

	/**
	 * The number found for the pointer at this position in the list, once ended.
	 */
	@Nullable Number number(int pointer);

	/**
	 * Why none was found for it, when {@link #number} is {@code null}.
	 */
	Unreadable miss(int pointer);

}
