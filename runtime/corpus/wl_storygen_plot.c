/* wl_storygen_plot.c: the story generator's sentence templates, stage by stage, and its kinds of problem. */
#include "wl_storygen_int.h"

/* Story slots: {N} hero's name, {P} {O} {D} he/him/his or she/her/her, {K} girl, boy or an
 * animal; {F} {FP} {FO} {FD} {FK} the friend; {M} {MP} {MO} the parent (mom, dad, ...);
 * {T} the object, {C} its colour, {S} its size, {U} {UP} {UG} its verb (fly, flew, flying);
 * {L} the place, {AT} "at the park", {TO} "to the park"; {W} the town; {X} an animal met
 * on the way; {B} a body part. Everything else in braces is a word list. */

static const wl_sg_step intro[] = {
    {WL_SG_ALTS(
        "Once upon a time, there was {a} {adj0} {K} named {N}.",
        "Once upon a time, there was {a} {adj0} {K} named {N}.",
        "Once upon a time there was {a} {adj0} {K} named {N}.",
        "Once upon a time, there was {a} {K} called {N}.",
        "Once upon a time, there lived {a} {adj0} {K} named {N}.",
        "Once upon a time, in {a} {home}, there lived {a} {adj0} {K} named {N}.",
        "Once upon a time, in {a} {home} there was {a} {K} named {N}.",
        "Once upon a time, {a} {adj0} {K} named {N} lived in {a} {home}.",
        "Once upon a time, there was {a} {adj0} {K} named {N} who loved to {vb}.",
        "Once upon a time there was {a} {adj0} {K} who liked to {vb}. {D} name was {N}.",
        "Once upon a time, there was {a} {K}. {D} name was {N}.",
        "Once upon a time, in a town called {W}, there was {a} {adj0} {K} named {N}.",
        "Once upon a time, there was {a} {adj0} {K} named {N}. {P} had {a} {S} {C} {T}.",
        "Once upon a time, there were two friends, {N} and {F}.",
        "There was once {a} {adj0} {K} named {N}.",
        "There once was {a} {K} named {N} who lived in {a} {home}.",
        "Once there was {a} {adj0} {K} named {N}.",
        "Once there was {a} {K}. {P} was very {adj1}, and {D} name was {N}.",
        "There was {a} {adj0} {K} named {N}.",
        "There was {a} {K} called {N} who {vd} every day.",
        "One day, {a} {adj0} {K} named {N} went to the {place2}.",
        "One day, {a} {K} named {N} was {vg} in the {room}.",
        "One sunny day, {N} went {TO} with {D} {M}.",
        "One day, {N} and {D} {M} went {TO}.",
        "One morning, {N} woke up and {vd}.",
        "{N} was {a} {adj0} {K}.",
        "{N} was {a} {adj0} {K} who lived in {a} {home}.",
        "{N} was {a} {adj0} {K} who loved to {vb}.",
        "Long ago, there was {a} {adj0} {K} named {N}.",
        "{N} and {D} {M} lived in {a} {home} {near} the {L}.",
        "In {a} {home}, there was {a} {adj0} {K} named {N}.",
        "{a} {adj0} {K} named {N} lived in {a} {home}."), 100},
    {WL_SG_ALTS(
        "{P} loved to {vb}.", "{P} liked to {vb} every day.", "{N} loved to {vb} and {vb}.",
        "{P} was very {adj1}.", "{N} was {adj1} and {adj1}.", "Every day, {N} {vd}.",
        "{P} lived with {D} {M} and {D} {sib}.", "{N} had a friend named {F}.",
        "{D} favorite thing was to {vb}.", "{N} liked {nouns} and {nouns}.",
        "{P} always wanted to {vb}.", "{N} lived with {D} {M} in {a} {home}.",
        "{P} had many friends.", "{N} was {a} good {K}, and everyone liked {O}."), 60},
};

static const wl_sg_step belongs[] = {
    {WL_SG_ALTS(
        "{N} had {a} {S} {C} {T}.",
        "{P} had {a} {S} {C} {T} that {D} {M} gave {O} for {D} birthday.",
        "{N}'s favorite thing was {a} {S} {C} {T}.",
        "One day, {N} found {a} {S} {C} {T} [under a tree|in the grass|in an old box|on the ground|behind the door|in the attic|under {D} bed].",
        "{D} {M} gave {O} {a} {S} {C} {T}.",
        "{N} got {a} {S} {C} {T} as a present.",
        "{N} had a favorite thing in the whole world: {a} {S} {C} {T}.",
        "For {D} birthday, {N} got {a} {S} {C} {T}.",
        "{N}'s {M} made {O} {a} {S} {C} {T}.",
        "{N} had {a} {C} {T}. It was {S} and {N} loved it.",
        "In {D} room, {N} kept {a} {S} {C} {T}.",
        "{N} always carried {a} {S} {C} {T} with {O}.",
        "Every day, {N} played with {D} {S} {C} {T}."), 100},
    {WL_SG_ALTS(
        "{N} loved the {C} {T} very much.",
        "{P} took the {C} {T} everywhere {P} went.",
        "{P} liked to {U} the {C} {T} every day.",
        "The {T} was {C} and {S}, and {N} loved it.",
        "Every day, {N} would {U} {D} {C} {T}.",
        "{N} said, \"This is the best {T} in the whole world!\"",
        "\"I love my {C} {T},\" {N} {said}.",
        "{N} called it \"my {C} {T}\" and never let it go.",
        "It was the only {C} {T} in all of {W}.",
        "{N} showed the {C} {T} to everyone {P} met."), 35},
};

static const wl_sg_step setting[] = {
    {WL_SG_ALTS(
        "One {weather} {part}, {N} and {D} {M} went {TO}.",
        "One {weather} {part}, {N} took the {C} {T} {TO}.",
        "One day, {N} wanted to {U} the {C} {T} {AT}.",
        "On {a} {weather} {part}, {N} went {TO} with {D} {M}.",
        "The next day, {N} [walked|{ran}|skipped|went] {TO} with {D} {C} {T}.",
        "One {weather} {part}, {D} {M} said, \"Let's go {TO}!\"",
        "{N} asked {D} {M}, \"Can we go {TO} today?\" {^}{D} {M} said yes.",
        "After breakfast, {N} {ran} {TO} with the {C} {T}.",
        "One {weather} {part}, {N} and {D} {M} walked {TO} together.",
        "It was {a} {weather} day, so {N} went {TO}.",
        "On Saturday, {D} {M} took {N} {TO}.",
        "That {part}, {N} put the {C} {T} in a bag and went {TO}."), 100},
    {WL_SG_ALTS(
        "The {L} was [full of|filled with] {flowers} and [tall|green|old|{big}] trees.",
        "{AT}, there was {a} {look} {thing} and {a} {look} {thing}.",
        "{N} could see {flowers}, {flowers} and {flowers} everywhere.",
        "The air smelled like {flowers} and fresh {food}.",
        "{AT}, {N} saw {a} {X} {doing} {near} {a} {look} {thing}.",
        "The sun was [shining|warm] and the {L} was [quiet|busy|full of people|full of children].",
        "There were {flowers} everywhere {AT}.",
        "{AT}, the grass was green and the sky was blue."), 25},
    {WL_SG_ALTS(
        "{N} [{smiled}|{laughed}|clapped {D} hands|jumped up and down]. {P} loved the {L}.",
        "{N} liked to be {AT}."), 5},
};

static const wl_sg_step meeting[] = {
    {WL_SG_ALTS(
        "{AT}, {N} met {a} {trait} {FK} named {F}.",
        "There, {N} saw {D} friend {F}, {a} {trait} {FK}.",
        "{N}'s best friend, {F}, was there too.",
        "Soon, {a} {trait} {FK} named {F} came over.",
        "{N} saw {a} {FK} {near} {a} {look} {thing}. The {FK}'s name was {F}.",
        "{AT}, {N} met a new friend. {FP} was {a} {trait} {FK} named {F}.",
        "{N} went to see {D} friend {F}, who lived near the {L}.",
        "{AT}, {N} saw {a} {trait} {FK}. {FP} said {FD} name was {F}.",
        "[Soon|Then], {N} met {D} friend {F} {AT}.",
        "{F}, {a} {trait} {FK}, was {AT} too.",
        "{AT}, there was {a} {FK} named {F}. {FP} was {trait} and {trait}.",
        "{N} was not alone. {D} friend {F} came too."), 100},
    {WL_SG_ALTS(
        "\"Hi, {F}!\" {said} {N}. \"Do you want to see my {C} {T}?\"",
        "\"Hello, {N}!\" {said} {F}. \"What {a} {S} {C} {T}!\"",
        "\"Hi, {N}! Can I play too?\" asked {F}.",
        "{F} {smiled} and said, \"I like your {C} {T}, {N}!\"",
        "\"Look at my {C} {T}!\" {N} {said} to {F}.",
        "\"Do you want to be my friend?\" asked {N}. \"Yes!\" {said} {F}.",
        "\"Hello!\" {said} {F}. \"My name is {F}. What is your name?\" {^}\"I am {N},\" {said} {N}.",
        "\"Can I see your {C} {T}?\" asked {F}.",
        "\"Hi, {F}!\" {said} {N}. \"Do you want to play with me?\"",
        "{F} looked at the {C} {T}. \"Wow, it is so {S}!\" {FP} {said}."), 50},
    {WL_SG_ALTS(
        "{F} [{smiled}|nodded|{laughed}|jumped up and down]. {FP} was [happy|glad|excited] to [play|meet {N}|have a new friend].",
        "{N} and {F} became friends right away."), 20},
};

static const wl_sg_step play[] = {
    {WL_SG_ALTS(
        "{N} and {F} played with the {C} {T} all {part}.",
        "{N} let {F} {U} the {C} {T}.",
        "They took turns. First {N} {UP} the {C} {T}, then {F} {UP} it.",
        "{N} and {F} played {game} {near} the {look} {thing}.",
        "{N} and {F} {ran} around the {L} and {laughed}.",
        "{F} showed {N} how to [jump over a log|climb a small tree|make a daisy chain|skip a stone|whistle|do a cartwheel].",
        "{N} and {F} played [{game}|with the {C} {T}] together.",
        "First they played {game}, and then they played with the {C} {T}.",
        "{N} showed {F} how to {U} the {C} {T}.",
        "{F} and {N} [{ran}|raced|skipped|hopped] all around the {L}."), 100},
    {WL_SG_ALTS(
        "They [{laughed}|giggled|{ran}|jumped|danced] and had so much fun.",
        "{N} was so {happy}. {P} liked playing with {F}.",
        "\"This is so much fun!\" {say} {F}.",
        "\"You are my best friend, {F},\" {said} {N}.",
        "Then they played {game} and {game}."), 25},
};

/* Short scenes that may appear between the play and the problem. */
static const wl_sg_step snack[] = {
    {WL_SG_ALTS("After a while, {N} and {F} were hungry.", "Soon it was time for a snack."), 100},
    {WL_SG_ALTS(
        "{D} {M} gave them {food} and {food}.",
        "They sat {near} {a} {look} {thing} and ate {food} and {food}.",
        "{N} shared {D} {treat} with {F}.",
        "{F} had {a} {treat} and gave half of it to {N}."), 100},
    {WL_SG_ALTS("\"Yum!\" {said} {F}. \"Thank you, {N}.\"", "It was [yummy|so good|delicious].",
        "{N} said, \"This is the best snack ever!\""), 55},
};

static const wl_sg_step creature[] = {
    {WL_SG_ALTS(
        "Then {N} saw {a} {X} {doing} {near} {a} {look} {thing}.",
        "[Suddenly|Just then], {a} {X} came out from behind {a} {look} {thing}."), 100},
    {WL_SG_ALTS(
        "\"Look, {F}! {^}{a} {X}!\" {said} {N}.",
        "\"What {a} [cute|funny|{little}|{big}] {X}!\" {said} {F}.",
        "{N} had never seen {a} {X} so close before."), 80},
    {WL_SG_ALTS(
        "{N} and {F} [watched|followed|waved at] the {X}. The {X} [looked at them|{ran} away|wagged its tail|went back to its home].",
        "The {X} looked at {N} and then [hopped|{ran}|flew|walked] away."), 70},
};

static const wl_sg_step song[] = {
    {WL_SG_ALTS(
        "{N} sang {a} {song} song about {D} {C} {T}.",
        "{F} made up {a} {song} song, and {N} sang along."), 100},
    {WL_SG_ALTS("{F} [clapped|danced|{laughed}|sang along].", "The birds sang with them."), 60},
};

static const wl_sg_step clouds[] = {
    {WL_SG_ALTS("{N} and {F} lay on the grass and looked at the clouds."), 100},
    {WL_SG_ALTS("\"That cloud looks like {a} {animal}!\" {said} {F}."), 100},
    {WL_SG_ALTS("\"And that one looks like {a} {T}!\" {said} {N}.",
        "\"And that one looks like {a} {treat}!\" {said} {N}."), 70},
};

static const wl_sg_step treasure[] = {
    {WL_SG_ALTS("{N} found {a} {treasure} {near} {a} {look} {thing}."), 100},
    {WL_SG_ALTS("\"Look what I found!\" {N} {said} to {F}.", "{P} put it in {D} pocket."), 70},
};

static const wl_sg_step parent[] = {
    {WL_SG_ALTS("{D} {M} [waved|called] from {a} bench. \"Be careful, {N}!\"",
        "{D} {M} sat on {a} bench and [read a book|watched them|{smiled}]."), 100},
    {WL_SG_ALTS("\"We will, {^}{M}!\" {said} {N}.", "{N} waved back."), 60},
};

static const wl_sg_step flowers[] = {
    {WL_SG_ALTS("{N} picked some {flowers} for {D} {M}.",
        "{N} and {F} picked {flowers} and made a crown."), 100},
    {WL_SG_ALTS("The {flowers} smelled very sweet.", "{F} helped {O}."), 50},
};

/* Free scenes: sentences of many shapes built from the large word lists ({noun}, {adj},
 * {vtp} found/saw ..., {vt} find/see ..., {vip} ran/jumped ..., {vi} run/jump ..., {adv},
 * {when}, {person}, {box}); several of them are written between the play and the problem. */
/* Free sentences: narration ({ev}) and dialogue ({talk}) from the sentence grammar of
 * wl_storygen_words.c; several of them are written between the play and the problem. */
const wl_sg_alts wl_sg_events = WL_SG_ALTS("{ev}", "{ev}", "{ev}", "{ev}", "{ev}", "{talk}", "{talk}",
        "{talk}", "{talk}");

const wl_sg_stage wl_sg_intro = WL_SG_STAGE(intro);
const wl_sg_stage wl_sg_belongs = WL_SG_STAGE(belongs);
const wl_sg_stage wl_sg_setting = WL_SG_STAGE(setting);
const wl_sg_stage wl_sg_meeting = WL_SG_STAGE(meeting);
const wl_sg_stage wl_sg_play = WL_SG_STAGE(play);

const wl_sg_stage wl_sg_fillers[] = {
    WL_SG_STAGE(snack), WL_SG_STAGE(creature), WL_SG_STAGE(song), WL_SG_STAGE(clouds),
    WL_SG_STAGE(treasure), WL_SG_STAGE(parent), WL_SG_STAGE(flowers),
};
const size_t wl_sg_nfillers = sizeof wl_sg_fillers / sizeof wl_sg_fillers[0];

/* The object is lost and found again. */
static const wl_sg_step lost_problem[] = {
    {WL_SG_ALTS(
        "[But then|Suddenly|All of a sudden|Then], {a} [strong wind blew away|{big} dog {ran} off with|naughty monkey grabbed|fast bird took|{big} wave carried away] the {C} {T}.",
        "{N} put the {C} {T} {near} {a} {look} {thing}, but when {P} came back, it was gone.",
        "When {N} was not looking, the {C} {T} [rolled|fell|slipped] away.",
        "{N} played and played, and then {P} could not find {D} {C} {T}.",
        "{N} [left|dropped] the {C} {T} {AT} and {ran} off to play {game}. When {P} came back, the {T} was not there.",
        "{^}{excl}! {N} could not find {D} {C} {T} anywhere.",
        "{N} turned around, and the {C} {T} was gone!"), 100},
    {WL_SG_ALTS("{N} looked [everywhere|all around|under every bush|behind every tree] for {D} {C} {T}, but {P} could not find it.",
        "{N} searched [{near} the {look} {thing}|in the grass|by the path], but there was no {C} {T}.",
        "{P} looked [high and low|here and there|far and near], but the {T} was gone.",
        "{N} called, \"{C} {T}, where are you?\" But nothing happened."), 100},
    {WL_SG_ALTS("{N} was very {sad}. [{P} started to cry.|Tears rolled down {D} cheeks.|{P} sat down and cried.|{P} did not know what to do.]"), 60},
    {WL_SG_ALTS("\"[Oh no|Help]! Where is my {C} {T}?\" [cried|asked|said] {N}."), 70},
};
static const wl_sg_step lost_solve[] = {
    {WL_SG_ALTS(
        "{F} [came over|{ran} to {O}|saw {N} crying|put an arm around {O}] and said, \"Don't worry, {N}. I will help you find it.\"",
        "\"Don't be {sad}, {N},\" {said} {F}. \"We can find your {C} {T} together.\"",
        "{F} saw that {N} was {sad}. \"I will help you look,\" {FP} {said}.",
        "\"What is wrong, {N}?\" asked {F}. \"I lost my {C} {T},\" {said} {N}. \"Let's find it,\" {said} {F}."), 100},
    {WL_SG_ALTS("{N} and {F} looked [near the {look} {thing}|in the tall grass|behind the trees|near the water|under the bench]."), 40},
    {WL_SG_ALTS(
        "[At last|Finally|Soon|After a long time], {F} found the {C} {T} {near} {a} {look} {thing}.",
        "Then {N} saw something {C} {near} {a} {look} {thing}. It was {D} {S} {C} {T}!",
        "\"Look!\" {say} {F}. \"There is your {C} {T}, {near} the {look} {thing}!\"",
        "{F} [pointed|jumped|shouted]. The {C} {T} was [under a bush|in the tall grass|behind a rock|next to the pond]!"), 100},
    {WL_SG_ALTS(
        "\"Thank you, {F}!\" {said} {N}. \"You are {a} {kind} friend.\"",
        "{N} hugged {F} and said, \"Thank you for helping me!\"",
        "{N} was so {happy} to have {D} {C} {T} back.",
        "\"My {C} {T}!\" {say} {N}. {^}{P} held it tight and thanked {F}."), 80},
};
static const wl_sg_step lost_moral[] = {
    {WL_SG_ALTS(
        "{N} learned that friends help each other.",
        "{N} learned that it is good to have a friend like {F}.",
        "And {N} never lost {D} {C} {T} again.",
        "The moral of the story is: a good friend helps you when you are sad.",
        "{N} learned to take good care of {D} things.",
        "From then on, {N} always kept {D} {C} {T} close."), 100},
};

/* The object is stuck up high. */
static const wl_sg_step stuck_problem[] = {
    {WL_SG_ALTS(
        "[But then|Suddenly|Oh no], the {C} {T} [flew up|bounced high|went up] and got stuck [in a tall tree|on the roof|on a high branch|on top of the fence|at the top of the slide].",
        "A gust of wind lifted the {C} {T} and it got stuck [in a tall tree|on the roof|on a high branch].",
        "{N} threw the {C} {T} up high, and it landed on top of {a} {look} [tree|shed|wall]. It was stuck!",
        "{^}{excl}! The {C} {T} was stuck [in a tall tree|on the roof|on a high branch]."), 100},
    {WL_SG_ALTS("{N} [jumped|reached|stretched|tried and tried], but {P} could not reach it.",
        "{N} tried to [climb up|jump up|reach it with a stick], but it was too high.",
        "{P} was too small to get the {C} {T} down."), 100},
    {WL_SG_ALTS("\"My {T}!\" cried {N}. \"How will I get it down?\"", "{N} felt {sad}."), 60},
};
static const wl_sg_step stuck_solve[] = {
    {WL_SG_ALTS(
        "{F} had an idea. \"Let's use a long stick!\" {FP} {said}.",
        "{F} said, \"I can climb! I will get it for you, {N}.\"",
        "{N} {ran} to get {D} {M}.",
        "\"I know what to do,\" {said} {F}. \"We can [use a long stick|get a ladder|ask for help].\"",
        "{F} looked up at the {C} {T} and thought hard."), 100},
    {WL_SG_ALTS(
        "{F} [climbed up carefully|pushed the {T} with a long stick|shook the branch gently|stood on a box], and the {C} {T} fell down.",
        "{D} {M} came with a ladder and got the {C} {T} down.",
        "With one more try, the {C} {T} came down, and {N} caught it.",
        "{F} stood on a box and pulled the {C} {T} down."), 100},
    {WL_SG_ALTS("{N} [caught|picked up|hugged] {D} {C} {T}. \"Thank you, {F}!\" {P} {said}."), 80},
};
static const wl_sg_step stuck_moral[] = {
    {WL_SG_ALTS(
        "{N} learned that when you work together, you can solve any problem.",
        "The moral of the story is: asking for help is a smart thing to do.",
        "{N} learned that friends can do more together than alone."), 100},
};

/* The object breaks and is mended. */
static const wl_sg_step broken_problem[] = {
    {WL_SG_ALTS(
        "[Then|But then|Suddenly], {N} [tripped|slipped|bumped into {F}], and the {C} {T} fell and broke.",
        "Oh no! The {C} {T} got {a} {big} [rip|crack|hole] in it.",
        "{N} dropped the {C} {T}, and it [broke|cracked|tore] into two pieces.",
        "{F} [pulled|played with|stepped on] the {C} {T} too hard, and it broke."), 100},
    {WL_SG_ALTS("{N} [looked at|picked up] the broken {T} and felt very {sad}.",
        "{N} held the broken {C} {T} and started to cry.",
        "{N} was very {sad}. {D} {S} {C} {T} was broken."), 100},
    {WL_SG_ALTS("\"My {S} {C} {T} is broken!\" cried {N}.",
        "It was {D} favorite {T}, and now it was broken."), 60},
    {WL_SG_ALTS("{F} felt {sad} too. {FP} did not know what to say."), 30},
};
static const wl_sg_step broken_solve[] = {
    {WL_SG_ALTS("{N} and {F} took the {C} {T} to {D} {M}.",
        "\"Let's ask your {M},\" {said} {F}.",
        "{N} took the broken {C} {T} home to {D} {M}.",
        "{F} said, \"Don't cry, {N}. Maybe we can fix it.\""), 100},
    {WL_SG_ALTS("{D} {M} [fixed the {C} {T} with some tape|glued the {C} {T} back together|mended the {C} {T} very carefully|fixed the {C} {T} with a needle and thread]."), 100},
    {WL_SG_ALTS("Soon the {C} {T} was as good as new!", "The {T} looked almost new again."), 60},
    {WL_SG_ALTS("\"Thank you, {^}{M}!\" {said} {N}, and {P} gave {D} {M} {a} {big} {hug}."), 60},
};
static const wl_sg_step broken_moral[] = {
    {WL_SG_ALTS(
        "{N} learned to be more careful with {D} things.",
        "From that day on, {N} was very careful with {D} {C} {T}.",
        "The moral of the story is: when something breaks, it can often be fixed with love and patience."), 100},
};

/* The hero will not share, then does. */
static const wl_sg_step share_problem[] = {
    {WL_SG_ALTS("{F} wanted to {U} the {C} {T} too.",
        "After a while, {F} asked, \"Can I {U} your {C} {T}, {N}?\"",
        "\"Can I have a turn with your {C} {T}?\" asked {F}.",
        "{F} looked at the {C} {T}. \"It is so {S}! Can I try?\" {FP} asked."), 100},
    {WL_SG_ALTS("But {N} did not want to share. \"No! It is my {T}!\" {P} {said}.",
        "{N} held the {C} {T} tight and said, \"No, it's mine!\"",
        "\"No, {F}. It is my {C} {T},\" {said} {N}, and {P} walked away.",
        "{N} shook {D} head. {P} did not want to share {D} {C} {T}."), 100},
    {WL_SG_ALTS("{F} felt {sad} and walked away.",
        "{F} sat down {near} {a} {look} {thing} and looked {sad}."), 80},
    {WL_SG_ALTS("Now {N} had the {C} {T}, but {P} had no one to play with."), 40},
};
static const wl_sg_step share_solve[] = {
    {WL_SG_ALTS("{N} [thought about|looked at] {F}. {P} did not like to see {D} friend so {sad}."), 70},
    {WL_SG_ALTS("{N} walked over to {F} and said, \"I am sorry, {F}. Do you want to {U} my {C} {T}?\"",
        "\"I am sorry, {F},\" {said} {N}. \"You can {U} my {C} {T} too.\"",
        "{N} gave the {C} {T} to {F} and said, \"Here, it's your turn.\""), 100},
    {WL_SG_ALTS("{F} {smiled}. \"Yes, thank you, {N}!\"", "{F}'s face lit up."), 70},
    {WL_SG_ALTS("{N} and {F} took turns with the {C} {T}, and it was much more fun together."), 60},
};
static const wl_sg_step share_moral[] = {
    {WL_SG_ALTS("{N} learned that sharing makes everyone happy.",
        "The moral of the story is: sharing is caring.",
        "{N} learned that playing together is more fun than playing alone.",
        "From then on, {N} always shared {D} toys with {D} friends."), 100},
};

/* A storm comes and passes. */
static const wl_sg_step rain_problem[] = {
    {WL_SG_ALTS(
        "[Suddenly|Then|All at once], dark clouds covered the sky and it began to [rain|pour|storm].",
        "The sky turned gray and {big} drops of rain began to fall.",
        "Then the wind began to blow, and it started to rain.",
        "{^}{excl}! Big gray clouds came, and soon it was raining hard."), 100},
    {WL_SG_ALTS("There was a loud boom of thunder.", "The wind blew hard.",
        "The rain fell harder and harder."), 40},
    {WL_SG_ALTS("{N} and {F} were [wet|cold|scared] and the {C} {T} was getting wet too.",
        "{N} held the {C} {T} close so it would not get wet.",
        "{N} and {F} did not want to go home, but they were getting wet."), 80},
    {WL_SG_ALTS("\"What do we do?\" asked {F}."), 50},
};
static const wl_sg_step rain_solve[] = {
    {WL_SG_ALTS("{N} [had an idea|looked around]. \"[Let's hide|Follow me|Come with me]!\" {P} {said}."), 100},
    {WL_SG_ALTS("They {ran} [under {a} {big} tree|into {a} {look} shed|under the slide|back home to {N}'s house] and waited."), 100},
    {WL_SG_ALTS("[Soon|After a while|Before long], the rain stopped and the sun came out. {^}[There was {a} {big} rainbow in the sky.|They saw a rainbow over the {L}.]"), 100},
    {WL_SG_ALTS("{N} and {F} [{laughed}|cheered|jumped in the puddles] and went back to play with the {C} {T}."), 50},
};
static const wl_sg_step rain_moral[] = {
    {WL_SG_ALTS("{N} learned that bad days do not last forever.",
        "The moral of the story is: stay calm, and the sun will come out again.",
        "{N} learned that {a} {little} rain cannot stop a good day with a friend."), 100},
};

/* A scary noise turns out to be a small animal. */
static const wl_sg_step fear_problem[] = {
    {WL_SG_ALTS("Then {N} heard {a} {sound} noise [coming from the bushes|behind the trees|near the {L}|under {a} {look} {thing}].",
        "[Suddenly|All at once|Just then], there was {a} {sound} sound [in the bushes|behind a tree|near the {look} {thing}].",
        "{N} and {F} were playing when they heard something go [rustle|crack|thump|squeak] [in the bushes|behind the {look} {thing}]."), 100},
    {WL_SG_ALTS("{N} was scared. {P} held {D} {C} {T} tight.",
        "{N} hid behind {F} and held the {C} {T} close.",
        "{N} felt {sad}. {P} did not like {sound} noises."), 80},
    {WL_SG_ALTS("\"What was that?\" [whispered|asked] {N}."), 60},
    {WL_SG_ALTS("{F} was scared too, but {FP} said, \"Let's go and look.\""), 60},
};
static const wl_sg_step fear_solve[] = {
    {WL_SG_ALTS("{N} and {F} [walked slowly|tiptoed|crept] to the [bushes|trees|sound].",
        "{F} took {N}'s hand, and they went to look together.",
        "Very slowly, {N} looked behind the [bush|tree|rock]."), 100},
    {WL_SG_ALTS("It was just {a} {little} {X}!",
        "Out came {a} [tiny|small|{little}|baby] {X}!",
        "There, {near} the {look} {thing}, sat {a} {little} {X}."), 100},
    {WL_SG_ALTS("The {X} was [lost|hungry|looking for its mom|stuck in the bushes]."), 60},
    {WL_SG_ALTS("{N} [{laughed}|{smiled}]. \"You scared us, {little} {X}!\" {P} {said}.",
        "\"Hello, {little} {X},\" {said} {N}. \"We are not scared of you now.\"",
        "{N} and {F} {laughed}. \"It was only {a} {X}!\" {said} {F}."), 70},
    {WL_SG_ALTS("{N} and {F} [helped the {X}|gave the {X} some {food}|said goodbye to the {X}]."), 50},
};
static const wl_sg_step fear_moral[] = {
    {WL_SG_ALTS("{N} learned that many things are not as scary as they seem.",
        "The moral of the story is: be brave and kind, even when you are scared.",
        "{N} learned to be brave, and {P} was never scared of {sound} noises again."), 100},
};

/* The hero falls and is comforted. */
static const wl_sg_step hurt_problem[] = {
    {WL_SG_ALTS("While {N} was running with the {C} {T}, {P} tripped over {a} [rock|root|stick|toy] and fell down.",
        "{N} {ran} too fast and fell down on the [path|grass|sand|steps].",
        "{N} climbed up {a} {look} [tree|rock|wall], but {P} slipped and fell."), 100},
    {WL_SG_ALTS("{P} hurt {D} {B}. [It hurt a lot.|There was {a} {little} scrape.|It was red and sore.]"), 100},
    {WL_SG_ALTS("{N} started to cry. \"Ouch! My {B}!\"", "\"Ouch!\" cried {N}."), 70},
};
static const wl_sg_step hurt_solve[] = {
    {WL_SG_ALTS("{F} {ran} to get {N}'s {M}.", "{F} helped {N} get up.",
        "\"Are you okay, {N}?\" asked {F}, and {FP} {ran} to help."), 100},
    {WL_SG_ALTS("{D} {M} [came running|gave {O} {a} {big} {hug}] and put a bandage on {D} {B}."), 100},
    {WL_SG_ALTS("\"Does it still hurt?\" asked {F}. \"Only {a} {little},\" {said} {N}."), 50},
    {WL_SG_ALTS("Soon {N} felt better and {P} [played with the {C} {T} again|{smiled} again]."), 80},
};
static const wl_sg_step hurt_moral[] = {
    {WL_SG_ALTS("{N} learned to be careful when {P} runs.",
        "The moral of the story is: friends take care of each other.",
        "{N} learned that when you fall down, you can get up again."), 100},
};

/* The hero wanders off and is brought back. */
static const wl_sg_step away_problem[] = {
    {WL_SG_ALTS("{N} [{ran} after|followed] {a} {X} and went far away from {D} {M}.",
        "{N} wanted to see {a} {X} up close, so {P} walked [into the trees|down a long path|over {a} {little} hill].",
        "{N} was chasing the {C} {T} and did not see where {P} was going."), 100},
    {WL_SG_ALTS("When {P} looked around, {P} could not see {D} {M} anywhere."), 80},
    {WL_SG_ALTS("{N} was lost {AT}. {P} felt {sad}.",
        "Everything {AT} looked {big} and strange. {N} was lost.",
        "{N} sat down {near} {a} {look} {thing}. {P} was lost and {sad}."), 100},
    {WL_SG_ALTS("\"[{^}{M}|Help]! Where are you?\" [cried|called] {N}."), 85},
};
static const wl_sg_step away_solve[] = {
    {WL_SG_ALTS("{F} heard {N} and came running.", "{F} found {N} {near} {a} {look} {thing}."), 100},
    {WL_SG_ALTS("\"Don't worry, {N}. I know the way,\" {said} {F}."), 60},
    {WL_SG_ALTS("{F} held {N}'s hand and they walked back together.",
        "{F} showed {N} the way back, past the {look} {thing}."), 100},
    {WL_SG_ALTS("Soon they saw {D} {M}. {N} {ran} to {MO} and gave {MO} {a} {big} {hug}."), 100},
};
static const wl_sg_step away_moral[] = {
    {WL_SG_ALTS("{N} learned to always stay close to {D} {M}.",
        "The moral of the story is: stay close to the people who take care of you."), 100},
};

/* A tower or castle falls down and is built again, together. */
static const wl_sg_step build_problem[] = {
    {WL_SG_ALTS(
        "{N} and {F} wanted to build {a} [{big}|tall|huge] [sand castle|tower of blocks|fort|snowman|house of sticks].",
        "{N} had an idea. \"Let's build {a} [{big}|tall] [sand castle|tower|fort] and put my {C} {T} on top!\""), 100},
    {WL_SG_ALTS(
        "They worked hard, and soon it was [very tall|almost done|the biggest one {AT}].",
        "{N} put the {C} {T} on top, and {F} clapped."), 100},
    {WL_SG_ALTS(
        "But then, [{a} {big} wave came|the wind blew hard|a dog {ran} by|{F} sneezed], and it all fell down!",
        "Then {a} {X} {ran} into it, and it all fell down!"), 100},
    {WL_SG_ALTS("{N} felt {sad}. \"Now we have to start again,\" {P} {said}.",
        "\"Oh no!\" cried {F}. \"All our work is gone!\""), 50},
};
static const wl_sg_step build_solve[] = {
    {WL_SG_ALTS(
        "\"Don't give up, {F},\" {said} {N}. \"We can build it again, even better!\"",
        "{F} said, \"Let's try again, {N}. This time we will make it strong.\""), 100},
    {WL_SG_ALTS("This time, {N} and {F} built it [slowly|carefully|together], one piece at a time."), 100},
    {WL_SG_ALTS("When it was done, it was even [bigger|taller|prettier] than before, and the {C} {T} sat right on top.",
        "Soon they had the best [castle|tower|fort] {AT}."), 100},
    {WL_SG_ALTS("{N} and {F} [cheered|{laughed}|gave each other a high five]."), 40},
};
static const wl_sg_step build_moral[] = {
    {WL_SG_ALTS("{N} learned that if you keep trying, you can do it.",
        "The moral of the story is: never give up, and work together."), 100},
};

/* A seed is planted, cared for, and grows. */
static const wl_sg_step seed_problem[] = {
    {WL_SG_ALTS("{D} {M} gave {N} {a} {little} seed. \"Plant it, and see what grows,\" {MP} said.",
        "{N} found a tiny seed {near} {a} {look} {thing}."), 100},
    {WL_SG_ALTS("{N} and {F} planted the seed {AT} and gave it some water."), 100},
    {WL_SG_ALTS("Every day, {N} looked at the ground, but nothing grew.",
        "{N} waited and waited, but nothing happened."), 100},
    {WL_SG_ALTS("\"Why is it not growing?\" {N} asked. {P} felt {sad}."), 50},
};
static const wl_sg_step seed_solve[] = {
    {WL_SG_ALTS("\"Be patient, {N},\" {said} {F}. \"Seeds need time, water and sun.\"",
        "{D} {M} said, \"Good things take time, {N}.\""), 100},
    {WL_SG_ALTS("So {N} gave the seed water every day and sang it {a} {song} song."), 60},
    {WL_SG_ALTS("One morning, {N} saw {a} {little} green sprout. Soon it grew into a tall plant with {a} {big} {C} flower!"), 100},
    {WL_SG_ALTS("\"Look, {F}! My {C} flower!\" {said} {N}.", "{N} and {F} {smiled} at the {C} flower."), 80},
};
static const wl_sg_step seed_moral[] = {
    {WL_SG_ALTS("{N} learned that good things take time.",
        "The moral of the story is: be patient, and take care of what you love."), 100},
};

/* A new friend is shy and sad until the hero is kind. */
static const wl_sg_step shy_problem[] = {
    {WL_SG_ALTS("{F} did not want to play. {FP} sat alone {near} {a} {look} {thing}.",
        "{F} looked {sad}. {FP} was new in {W} and had no friends."), 100},
    {WL_SG_ALTS("\"What is wrong, {F}?\" asked {N}."), 100},
    {WL_SG_ALTS("\"I miss my old home,\" {said} {F}. \"I don't know anyone here.\"",
        "\"I am shy,\" {F} {said} quietly. \"I don't know how to make friends.\""), 100},
};
static const wl_sg_step shy_solve[] = {
    {WL_SG_ALTS("{N} sat down next to {F}. \"You can play with my {C} {T},\" {P} {said}.",
        "{N} gave {F} {D} {C} {T} to hold. \"Now you know me,\" {P} {said} with a smile."), 100},
    {WL_SG_ALTS("{F} [{smiled} {a} {little}|looked up|wiped {FD} eyes]. {FP} held the {C} {T} and started to laugh."), 100},
    {WL_SG_ALTS("Soon {N} and {F} were playing {game} together {AT}.", "{N} showed {F} all of {W}."), 50},
    {WL_SG_ALTS("\"Thank you, {N},\" {said} {F}. \"You are my first friend here.\""), 70},
};
static const wl_sg_step shy_moral[] = {
    {WL_SG_ALTS("{N} learned that {a} {little} kindness can make {a} {big} difference.",
        "The moral of the story is: be kind to someone who is new."), 100},
};

/* A present for the parent is made in secret. */
static const wl_sg_step gift_problem[] = {
    {WL_SG_ALTS("{N} remembered that tomorrow was {D} {M}'s birthday.",
        "{N} wanted to give {D} {M} a special present, but {P} had no money."), 100},
    {WL_SG_ALTS("\"What can I give {MO}?\" {N} asked {F}. \"I have nothing to give.\""), 100},
    {WL_SG_ALTS("{N} thought and thought, but {P} did not know what to do."), 30},
};
static const wl_sg_step gift_solve[] = {
    {WL_SG_ALTS("{F} had an idea. \"You can make something!\" {FP} {said}.",
        "\"Let's make a card,\" {said} {F}. \"Everybody loves cards.\""), 100},
    {WL_SG_ALTS("{N} and {F} made a card with {C} paper and drew {a} {S} {C} {T} on it.",
        "They picked {flowers} and tied them with {a} {C} ribbon."), 100},
    {WL_SG_ALTS("The next day, {N} gave the present to {D} {M}. {^}{D} {M} {smiled} and gave {O} {a} {big} {hug}."), 100},
    {WL_SG_ALTS("\"This is the best present ever, {N},\" said {D} {M}."), 50},
};
static const wl_sg_step gift_moral[] = {
    {WL_SG_ALTS("{N} learned that the best presents come from the heart.",
        "The moral of the story is: a gift made with love is worth more than money."), 100},
};

const wl_sg_plot wl_sg_plots[] = {
    {WL_SG_STAGE(lost_problem), WL_SG_STAGE(lost_solve), WL_SG_STAGE(lost_moral)},
    {WL_SG_STAGE(stuck_problem), WL_SG_STAGE(stuck_solve), WL_SG_STAGE(stuck_moral)},
    {WL_SG_STAGE(broken_problem), WL_SG_STAGE(broken_solve), WL_SG_STAGE(broken_moral)},
    {WL_SG_STAGE(share_problem), WL_SG_STAGE(share_solve), WL_SG_STAGE(share_moral)},
    {WL_SG_STAGE(rain_problem), WL_SG_STAGE(rain_solve), WL_SG_STAGE(rain_moral)},
    {WL_SG_STAGE(fear_problem), WL_SG_STAGE(fear_solve), WL_SG_STAGE(fear_moral)},
    {WL_SG_STAGE(hurt_problem), WL_SG_STAGE(hurt_solve), WL_SG_STAGE(hurt_moral)},
    {WL_SG_STAGE(away_problem), WL_SG_STAGE(away_solve), WL_SG_STAGE(away_moral)},
    {WL_SG_STAGE(build_problem), WL_SG_STAGE(build_solve), WL_SG_STAGE(build_moral)},
    {WL_SG_STAGE(seed_problem), WL_SG_STAGE(seed_solve), WL_SG_STAGE(seed_moral)},
    {WL_SG_STAGE(shy_problem), WL_SG_STAGE(shy_solve), WL_SG_STAGE(shy_moral)},
    {WL_SG_STAGE(gift_problem), WL_SG_STAGE(gift_solve), WL_SG_STAGE(gift_moral)},
};
const size_t wl_sg_nplots = sizeof wl_sg_plots / sizeof wl_sg_plots[0];

static const wl_sg_step ending[] = {
    {WL_SG_ALTS(
        "{N} and {F} played with the {C} {T} until the sun went down.",
        "From that day on, {N} and {F} were best friends.",
        "When it was time to go home, {N} [waved|said goodbye] to {F}. \"See you tomorrow!\" {P} {said}.",
        "That evening, {N} told {D} {M} all about {D} day {AT}.",
        "{N} went home with {D} {C} {T} and {a} {big} smile.",
        "At the end of the day, {N} and {F} walked home together.",
        "When the sun went down, {N} took {D} {C} {T} and went home.",
        "{N} hugged {F} and said, \"Thank you for a great day!\"",
        "That night, {N} dreamed about {D} {C} {T} and {D} friend {F}."), 100},
    {WL_SG_ALTS(
        "That night, {N} [slept|went to bed] with the {C} {T} next to {O}.",
        "{N} was very {happy}. It was the best day ever.",
        "{N} and {F} played together {AT} every day after that.",
        "{P} could not wait to go back {TO} with {F}.",
        "{N} knew that {F} was {a} {kind} friend.",
        "{N} {smiled}. {P} was happy to have a friend like {F}.",
        "It was a day {N} would never forget."), 30},
};
const wl_sg_stage wl_sg_ending = WL_SG_STAGE(ending);
